// The order in which a benchmark round visits its variants.
//
// A variant's time depends on what ran just before it: a module unloaded by the previous variant
// may still be freeing its memory, a stream may still be draining. Rotating a fixed order keeps
// every variant behind the same neighbour, which charges one variant for another's leftovers
// every round. A fresh shuffle per round, from a fixed seed so runs are comparable, puts each
// variant behind every other about equally often.
#pragma once

#include <algorithm>
#include <cstddef>
#include <numeric>
#include <random>
#include <vector>

class RoundOrder {
public:
  explicit RoundOrder(size_t count) : order_(count) {}

  // The variants' indices for the next round.
  const std::vector<size_t>& next() {
    std::iota(order_.begin(), order_.end(), size_t{0});
    std::shuffle(order_.begin(), order_.end(), random_);
    return order_;
  }

private:
  std::vector<size_t> order_;
  std::mt19937 random_{20261120u};
};
