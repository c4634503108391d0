// heap_cxx.cpp — C++ allocation through new/delete, for `gotrace heap`:
//
//   cxx_leak    leaks LEAKS = 50 Nodes (new), 16 bytes each on LP64
//   cxx_churn   CHURN = 3000 new/delete of Node, and 1000 new[]/delete[] of 25 ints
//   containers  std::vector, std::string, std::map and std::shared_ptr, all freed
//
// cxx_leak and cxx_churn allocate nothing else and are never inlined, so
// their names are the allocation sites.
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <vector>

#if defined(__clang__)
#define SITE __attribute__((noinline))
#else
#define SITE __attribute__((noipa))
#endif

struct Node {
	int value;
	Node *next;
};

static constexpr int LEAKS = 50;
static constexpr int CHURN = 3000;
static constexpr int ARRAYS = 1000;

static Node *volatile leaked_head;
static unsigned long sum;

SITE void cxx_leak()
{
	Node *head = nullptr;
	for (int i = 0; i < LEAKS; i++)
		head = new Node{ i, head };
	leaked_head = head;
}

SITE void cxx_churn()
{
	for (int i = 0; i < CHURN; i++) {
		Node *n = new Node{ i, nullptr };
		sum += static_cast<unsigned long>(n->value);
		delete n;
	}
	for (int i = 0; i < ARRAYS; i++) {
		int *a = new int[25];
		a[24] = i;
		sum += static_cast<unsigned long>(a[24]);
		delete[] a;
	}
}

SITE void containers()
{
	std::vector<std::unique_ptr<Node>> v;
	for (int i = 0; i < 500; i++)
		v.push_back(std::make_unique<Node>(Node{ i, nullptr }));
	std::map<int, std::string> m;
	for (int i = 0; i < 300; i++)
		m[i] = std::string(40, static_cast<char>('a' + i % 26));
	auto shared = std::make_shared<std::vector<int>>(1000, 7);
	for (auto &p : v)
		sum += static_cast<unsigned long>(p->value);
	sum += m.size() + shared->size();
}

int main()
{
	cxx_leak();
	cxx_churn();
	containers();
	std::printf("heap_cxx: checksum %lu\n", sum);
	return 0;
}
