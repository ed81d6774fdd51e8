// node_counts_text.hpp - a packing as the placement tests write their
// expectations: "node:count" pairs, or "none".
#ifndef OMRU_TESTS_NODE_COUNTS_TEXT_HPP
#define OMRU_TESTS_NODE_COUNTS_TEXT_HPP

#include <optional>
#include <string>

#include "policy/placement.hpp"

inline std::string show(const std::optional<omru::NodeCounts> &p)
{
	if (!p)
		return "none";
	std::string s;
	for (auto [node, count] : *p)
		s += (s.empty() ? "" : " ") + std::to_string(node) + ":" + std::to_string(count);
	return s;
}

#endif
