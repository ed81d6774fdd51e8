// gantt_slots.hpp - which GPU lane each segment of a schedule is drawn on.
// The simulator knows its GPU ids; a schedule read from a CSV only knows
// nodes, so its segments get the lowest free slots of their nodes (greedy
// interval colouring, which never runs out on a valid schedule).
#ifndef OMRU_SIM_GANTT_SLOTS_HPP
#define OMRU_SIM_GANTT_SLOTS_HPP

#include <vector>

#include "model/schedule.hpp"

namespace omru {

// One segment laid out on GPU lanes (rows: node * G + slot, G the largest
// node's GPUs; the GPU ids themselves when every node has G).
struct Placed {
	size_t seg;            // index into the schedule
	std::vector<int> rows; // sorted
	int overflow = 0;      // GPUs that found no free lane
};

// Sweeps the segments in start order (non-finite times are left out).
// Segments with gpu_ids keep them; the others take the lowest free slots on
// each of their nodes.  What does not fit counts as overflow.
std::vector<Placed> place_segments(const Cluster &c, const Schedule &s);

} // namespace omru

#endif
