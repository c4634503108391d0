// cxx_threads: C++ standard threads.  Two producers and two consumers share a
// bounded queue (capacity 4) guarded by std::mutex with two
// std::condition_variable (not_full / not_empty), so both sides really wait.
// A std::lock_guard-protected total is updated by the consumers.  Prints the
// item count and a checksum that does not depend on the interleaving; exit 0.
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

namespace {

constexpr int kProducers = 2;
constexpr int kConsumers = 2;
constexpr int kItemsPerProducer = 5000;
constexpr std::size_t kCapacity = 4;

class BoundedQueue {
  public:
    void push(std::uint64_t v) {
        std::unique_lock<std::mutex> lk(mu_);
        not_full_.wait(lk, [this] { return q_.size() < kCapacity; });
        q_.push_back(v);
        not_empty_.notify_one();
    }

    // Returns false once closed and drained.
    bool pop(std::uint64_t &v) {
        std::unique_lock<std::mutex> lk(mu_);
        not_empty_.wait(lk, [this] { return !q_.empty() || closed_; });
        if (q_.empty())
            return false;
        v = q_.front();
        q_.pop_front();
        not_full_.notify_one();
        return true;
    }

    void close() {
        std::lock_guard<std::mutex> lk(mu_);
        closed_ = true;
        not_empty_.notify_all();
    }

  private:
    std::mutex mu_;
    std::condition_variable not_full_, not_empty_;
    std::deque<std::uint64_t> q_;
    bool closed_ = false;
};

BoundedQueue queue;
std::mutex total_mu;
std::uint64_t total_sum = 0, total_xor = 0, total_items = 0;

void producer(int id) {
    for (int i = 0; i < kItemsPerProducer; i++) {
        std::uint64_t v = static_cast<std::uint64_t>(id) * 1000003u + static_cast<std::uint64_t>(i) * 7919u;
        queue.push(v);
    }
}

void consumer() {
    std::uint64_t v, sum = 0, x = 0, n = 0;
    while (queue.pop(v)) {
        sum += v;
        x ^= v * 0x9e3779b97f4a7c15ull;
        n++;
        if (n % 64 == 0) {
            std::lock_guard<std::mutex> lk(total_mu);
            total_items += 64;
            n = 0;
        }
    }
    std::lock_guard<std::mutex> lk(total_mu);
    total_sum += sum;
    total_xor ^= x;
    total_items += n;
}

}  // namespace

int main() {
    std::vector<std::thread> producers, consumers;
    for (int i = 0; i < kConsumers; i++)
        consumers.emplace_back(consumer);
    for (int i = 0; i < kProducers; i++)
        producers.emplace_back(producer, i);
    for (auto &t : producers)
        t.join();
    queue.close();
    for (auto &t : consumers)
        t.join();
    std::printf("items: %llu\n", static_cast<unsigned long long>(total_items));
    std::printf("checksum: %llu %016llx\n", static_cast<unsigned long long>(total_sum),
                static_cast<unsigned long long>(total_xor));
    return total_items == kProducers * kItemsPerProducer ? 0 : 1;
}
