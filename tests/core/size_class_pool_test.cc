#include "core/size_class_pool.h"

#include <catch2/catch.hpp>
#include <cstdlib>
#include <vector>

namespace duet {
namespace {

// malloc/free that count their calls and the bytes they hold, and fail past `limit` bytes.
struct FakeBackend {
  int64_t allocs = 0, frees = 0, bytes_held = 0;
  int64_t limit = int64_t{1} << 40;
  std::vector<std::pair<void*, size_t>> live;

  SizeClassPool::Backend backend() {
    return {[this](size_t bytes) -> void* {
              if (bytes_held + static_cast<int64_t>(bytes) > limit) return nullptr;
              ++allocs;
              bytes_held += bytes;
              void* p = std::malloc(bytes);
              live.emplace_back(p, bytes);
              return p;
            },
            [this](void* p) {
              ++frees;
              for (auto it = live.begin(); it != live.end(); ++it) {
                if (it->first != p) continue;
                bytes_held -= it->second;
                live.erase(it);
                break;
              }
              std::free(p);
            }};
  }
};

TEST_CASE("Sizes round up to a power-of-two class of at least 64 bytes") {
  CHECK(SizeClass(0) == 0);
  CHECK(SizeClass(1) == 0);
  CHECK(SizeClass(64) == 0);
  CHECK(SizeClass(65) == 1);
  CHECK(ClassBytes(SizeClass(1000)) == 1024);
  CHECK(ClassBytes(SizeClass(1024)) == 1024);
  CHECK(ClassBytes(SizeClass(1025)) == 2048);
  CHECK(SizeClass(kMaxClassBytes) == kNumSizeClasses - 1);
}

TEST_CASE("A steady state of alloc/free cycles calls the backend once") {
  FakeBackend fake;
  SizeClassPool pool(fake.backend(), size_t{1} << 30);
  void* first = pool.Allocate(1000);
  REQUIRE(first != nullptr);
  CHECK(fake.bytes_held == 1024);  // the whole class
  pool.Deallocate(first, 1000);
  for (int i = 0; i < 100; ++i) {
    void* p = pool.Allocate(1000);
    CHECK(p == first);
    pool.Deallocate(p, 1000);
  }
  CHECK(fake.allocs == 1);
  CHECK(fake.frees == 0);
  const SizeClassPool::Stats s = pool.stats();
  CHECK(s.allocations == 101);
  CHECK(s.pool_hits == 100);
  CHECK(s.bytes_in_use == 0);
  CHECK(s.bytes_pooled == 1024);
}

TEST_CASE("Different sizes in one class share blocks; other classes do not") {
  FakeBackend fake;
  SizeClassPool pool(fake.backend(), size_t{1} << 30);
  void* p = pool.Allocate(600);  // class 1024
  pool.Deallocate(p, 600);
  void* q = pool.Allocate(1024);
  CHECK(q == p);
  void* r = pool.Allocate(600);  // the block is taken: a new one
  CHECK(r != p);
  void* big = pool.Allocate(1025);  // class 2048
  CHECK(fake.allocs == 3);
  const SizeClassPool::Stats s = pool.stats();
  CHECK(s.bytes_in_use == 1024 + 1024 + 2048);
  CHECK(s.pool_hits == 1);
  pool.Deallocate(q, 1024);
  pool.Deallocate(r, 700);
  pool.Deallocate(big, 2000);
  CHECK(pool.stats().bytes_in_use == 0);
  CHECK(pool.stats().bytes_pooled == 1024 + 1024 + 2048);
}

TEST_CASE("Beyond the cap, freed blocks go back to the backend") {
  FakeBackend fake;
  SizeClassPool pool(fake.backend(), /*max_pooled_bytes=*/2048);
  void* a = pool.Allocate(1024);
  void* b = pool.Allocate(1024);
  void* c = pool.Allocate(1024);
  pool.Deallocate(a, 1024);
  pool.Deallocate(b, 1024);
  CHECK(fake.frees == 0);
  pool.Deallocate(c, 1024);  // would make 3072 pooled bytes
  CHECK(fake.frees == 1);
  CHECK(pool.stats().bytes_pooled == 2048);
  CHECK(fake.bytes_held == 2048);
}

TEST_CASE("Clear frees every pooled block through the backend") {
  FakeBackend fake;
  SizeClassPool pool(fake.backend(), size_t{1} << 30);
  std::vector<void*> blocks;
  for (size_t bytes : {64, 100, 1000, 5000, 5000}) blocks.push_back(pool.Allocate(bytes));
  void* held = pool.Allocate(300);
  int i = 0;
  for (size_t bytes : {64, 100, 1000, 5000, 5000}) pool.Deallocate(blocks[i++], bytes);
  pool.Clear();
  CHECK(fake.frees == 5);
  CHECK(fake.bytes_held == 512);  // only the block still in use
  CHECK(pool.stats().bytes_pooled == 0);
  CHECK(pool.stats().bytes_in_use == 512);
  void* again = pool.Allocate(1000);  // the pool is empty: a backend call
  CHECK(fake.allocs == 7);
  pool.Deallocate(again, 1000);
  pool.Deallocate(held, 300);
}

TEST_CASE("Sizes beyond every class fail without reaching the backend") {
  FakeBackend fake;
  SizeClassPool pool(fake.backend(), size_t{1} << 30);
  CHECK(pool.Allocate(kMaxClassBytes + 1) == nullptr);
  CHECK(fake.allocs == 0);
  CHECK(pool.stats().allocations == 0);
}

TEST_CASE("A failed backend allocation returns nullptr and counts no bytes in use") {
  FakeBackend fake;
  fake.limit = 1024;
  SizeClassPool pool(fake.backend(), size_t{1} << 30);
  CHECK(pool.Allocate(2048) == nullptr);
  const SizeClassPool::Stats s = pool.stats();
  CHECK(s.allocations == 1);
  CHECK(s.bytes_in_use == 0);
}

TEST_CASE("With clear_and_retry, a failed allocation frees the pool and tries again") {
  FakeBackend fake;
  fake.limit = 4096;
  SizeClassPool pool(fake.backend(), size_t{1} << 30, /*clear_and_retry=*/true);
  void* small = pool.Allocate(1024);
  void* mid = pool.Allocate(2048);
  pool.Deallocate(small, 1024);
  pool.Deallocate(mid, 2048);  // 3072 bytes pooled, only 1024 left in the backend
  void* big = pool.Allocate(4096);
  REQUIRE(big != nullptr);
  CHECK(fake.frees == 2);
  CHECK(pool.stats().bytes_pooled == 0);
  pool.Deallocate(big, 4096);

  FakeBackend strict;
  strict.limit = 4096;
  SizeClassPool no_retry(strict.backend(), size_t{1} << 30);
  no_retry.Deallocate(no_retry.Allocate(2048), 2048);
  CHECK(no_retry.Allocate(4096) == nullptr);  // 2048 pooled + 4096 > limit
  CHECK(strict.frees == 0);
}

TEST_CASE("The destructor frees the pooled blocks") {
  FakeBackend fake;
  {
    SizeClassPool pool(fake.backend(), size_t{1} << 30);
    pool.Deallocate(pool.Allocate(100), 100);
    pool.Deallocate(pool.Allocate(10000), 10000);
  }
  CHECK(fake.frees == 2);
  CHECK(fake.bytes_held == 0);
}

}  // namespace
}  // namespace duet
