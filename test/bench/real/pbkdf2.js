// node: crypto.pbkdf2Sync, 4 x 20,000 iterations of HMAC-SHA-512 (OpenSSL
// allocates and frees a digest context per iteration: ~770,000 allocations).
// Prints one line that must not change: the derived keys' hash.
'use strict';
const crypto = require('crypto');
const h = crypto.createHash('sha256');
for (let i = 0; i < 4; i++) {
  h.update(crypto.pbkdf2Sync('password' + i, 'salt' + i, 20000, 64, 'sha512'));
}
console.log('RESULT pbkdf2 ' + h.digest('hex'));
