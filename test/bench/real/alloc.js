// node: an allocation-heavy script: objects, JSON round trips, Maps, string
// building, then 2 x crypto.pbkdf2Sync (20,000 iterations). Deterministic
// (a fixed linear congruential generator): prints one line that must not change.
'use strict';
const crypto = require('crypto');
let seed = 12345;
function rnd(n) { seed = (seed * 1103515245 + 12345) % 2147483648; return seed % n; }

const h = crypto.createHash('sha256');
for (let round = 0; round < 20; round++) {
  const m = new Map();
  for (let i = 0; i < 40000; i++) {
    const o = { id: i, name: 'item-' + rnd(100000), tags: [rnd(10), rnd(100), rnd(1000)],
                nested: { a: rnd(7), b: 'x'.repeat(rnd(32)) } };
    m.set('k' + i, o);
  }
  let total = 0;
  const chunks = [];
  for (const [k, v] of m) {
    if (v.nested.a === 3) m.delete(k);
    else total += v.tags[1];
    if (v.id % 50 === 0) chunks.push(v);
  }
  const text = JSON.stringify(chunks);
  const back = JSON.parse(text);
  h.update(String(total) + ':' + m.size + ':' + back.length + ':' + text.length);
}
for (let i = 0; i < 2; i++) h.update(crypto.pbkdf2Sync('pw' + i, 'salt', 20000, 32, 'sha512'));
console.log('RESULT alloc ' + h.digest('hex'));
