#include "tilesight/net/collective_algorithm.h"

namespace tilesight::net {

const std::vector<std::unique_ptr<CollectiveAlgorithm>>& all_algorithms() {
  static const auto all = [] {
    std::vector<std::unique_ptr<CollectiveAlgorithm>> v;
    v.push_back(make_ring());
    v.push_back(make_double_binary_tree());
    v.push_back(make_recursive_doubling());
    v.push_back(make_recursive_halving());
    v.push_back(make_rabenseifner());
    v.push_back(make_direct_all_to_all());
    v.push_back(make_pairwise_all_to_all());
    v.push_back(make_point_to_point());
    return v;
  }();
  return all;
}

const CollectiveAlgorithm* find_algorithm(std::string_view name) {
  for (const auto& a : all_algorithms())
    if (a->name() == name) return a.get();
  return nullptr;
}

std::vector<std::string_view> algorithm_names() {
  std::vector<std::string_view> names;
  for (const auto& a : all_algorithms()) names.push_back(a->name());
  return names;
}

}  // namespace tilesight::net
