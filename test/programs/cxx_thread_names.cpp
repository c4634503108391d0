// cxx_thread_names: std::thread threads started with three kinds of
// callable, each waiting 20 ms for a mutex main holds, so every thread has
// a stack: two with a function object (Sorter), one with a plain function
// (indexer), one with a lambda. Prints "done"; exit 0.
#include <chrono>
#include <cstdio>
#include <mutex>
#include <thread>
#include <vector>

static std::mutex mu;

struct Sorter {
    int id;
    void operator()() const {
        std::lock_guard<std::mutex> g(mu);
    }
};

__attribute__((noinline)) static void indexer(int n) {
    std::lock_guard<std::mutex> g(mu);
    (void)n;
}

int main() {
    std::vector<std::thread> v;
    {
        std::lock_guard<std::mutex> g(mu);
        v.emplace_back(Sorter{1});
        v.emplace_back(Sorter{2});
        v.emplace_back(indexer, 3);
        v.emplace_back([] { std::lock_guard<std::mutex> g2(mu); });
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    for (auto &t : v)
        t.join();
    std::printf("done\n");
    return 0;
}
