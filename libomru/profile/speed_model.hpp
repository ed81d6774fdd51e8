// speed_model.hpp - the planner's speed model: seconds per epoch of every
// model at every GPU count and node span the cluster can give, measured or
// not, with a flag saying how far each number is from a measurement.
// ProfileTable is the truth and never invents a row, but a planner in Slurm
// must price counts nobody measured, and real profiles are noisy (in the
// shared T4 data more GPUs on the same nodes are sometimes slower): a planner
// that believed the noise would give GPUs that make a job slower.
//
// So the rows are fitted, but per node count.  Curve k of a model is its rows
// that span exactly k nodes: a row with nodes = k, and a row without a node
// count (packed) whose count g has min_nodes(g) = k on this cluster.  Each
// curve is fitted non-increasing in g on its own (fit_non_increasing).  The
// fit never pools across node counts: a job that starts to span another node
// talks over the network instead of NVLink/PCIe, and the jump in epoch time
// that brings is real (in the T4 data 5 GPUs over 2 nodes are much slower
// than 4 on one), not noise to smooth away.
//
// What holds, for every model:
//  - Each curve is non-increasing in g wherever spread(m, g, k) comes from
//    curve k itself: at and between its measured counts, and at the counts
//    packed on k (min_nodes(g) = k) outside them.
//  - Clean input comes back exact: where a curve's rows are already
//    non-increasing in g, every row of it is returned bit for bit, Measured.
//    More generally a row is Measured exactly when the fit kept it.
//  - packed(m, g) = spread(m, g, min_nodes(g)) is non-increasing in g within
//    each node span (the g with the same min_nodes(g)) but NOT over all g: it
//    may jump up where g needs one more node (g = k * gpus_per_node + 1).
//  - best(m, g) is never slower than packed(m, g) (nor than any spread of g);
//    it is not monotone either, since every spread of g + 1 GPUs may be slower
//    than g GPUs packed on fewer nodes.
//  - Nothing depends on the cluster's node count, only on its GPUs per node
//    (rows over more nodes than the cluster has still make curves, used only
//    to borrow from, and ratios): a cluster with more nodes only adds counts
//    and spans.
#ifndef OMRU_PROFILE_SPEED_MODEL_HPP
#define OMRU_PROFILE_SPEED_MODEL_HPP

#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "model/cluster.hpp"
#include "profile/profile_table.hpp"

namespace omru {

enum class Confidence {
	Measured,     // a profile row, kept as measured
	Interpolated, // between measurements, or a measurement the fit moved
	Extrapolated, // outside the measured counts, or a guessed spread
};

// "measured", "interpolated", "extrapolated".
const char *confidence_name(Confidence c);

// What one node more than the fewest costs a spread that neither its model
// nor any other model measured: epoch time x this, per extra node
// (omru.conf SpreadCost, doc/omru.conf.5).  Priced at 1 (free), the plan
// spread small jobs over nodes to fill holes, and they ran ~1.3x slower.
// In data/profiles-t4.csv 2 to 4 GPUs over more nodes than they need cost a
// median 1.09x per extra node, up to 2.5x for yolov3, ncf and bert; 2 GPUs
// over 2 nodes a median 1.31x.  1.25 sits between: a plan that waits a
// little for a packed placement loses less than one that spreads a job
// that communicates much.
constexpr double kDefaultSpreadCost = 1.25;

struct SpeedEstimate {
	double epoch_s;
	Confidence confidence;
};

class SpeedModel {
    public:
	// Fits every model of `p` for counts 1..c.total_gpus() on cluster `c`;
	// `spread_cost` prices spreads nobody measured (spread() above).
	// std::invalid_argument when the cluster has no GPU or spread_cost is
	// not a number >= 1.
	SpeedModel(const ProfileTable &p, const Cluster &c,
		   double spread_cost = kDefaultSpreadCost);

	int model_count() const { return static_cast<int>(models_.size()); }
	int max_gpus() const { return cluster_.total_gpus(); }

	// `gpus` over `nodes` nodes, min_nodes(gpus) <= nodes <= gpus and
	// nodes <= the cluster's nodes; std::invalid_argument on a bad model,
	// count or span.  With curve k = `nodes` and [a, b] its measured
	// counts (the fitted values t):
	//  - g measured on k: t(g), Measured if the fit kept the row, else
	//    Interpolated (pooled with a neighbour that contradicted it);
	//  - a < g < b: power law between the neighbouring measured counts
	//    (linear in log g, log t), Interpolated;
	//  - k = min_nodes(g) (packed) and g < a: linear scaling from a, the
	//    same GPU-seconds per epoch, t(a) * a / g; g > b: t(b), no speedup
	//    beyond what was shown.  Extrapolated.  (a is then a packed row
	//    of k too: (k - 1) * gpus_per_node < g < a <= k * gpus_per_node.)
	//  - k = min_nodes(g) and curve k has no row: the same rules on the
	//    nearest curve that has one, fewer nodes first (so a cluster wider
	//    than the profiles keeps the widest measured time), Extrapolated;
	//  - k > min_nodes(g), g outside [a, b] or no curve k: packed(g) times
	//    the model's median ratio of measured spreads that many nodes wider
	//    than packed to the packed row of the same count, else the median
	//    over all its measured spreads; a model that measured no spread:
	//    the median ratio of the other models' spreads of g over k nodes
	//    (at least 1), else spread_cost per extra node; Extrapolated.
	SpeedEstimate spread(int model, int gpus, int nodes) const;
	// spread(model, gpus, min_nodes(gpus)): the fewest nodes.  Rises at
	// node boundaries (see the top of this file).
	SpeedEstimate packed(int model, int gpus) const;
	// The fastest spread(model, gpus, k) over every span the cluster
	// allows, min_nodes(gpus)..min(gpus, nodes); the fewest nodes on a
	// tie.  What a planner should price a count at when it may choose
	// the span.  The winner may be a spread guessed by the median ratio
	// (Extrapolated) where the profiles stop short of the cluster's
	// width: look at its confidence.
	SpeedEstimate best(int model, int gpus) const;

    private:
	// One node count's rows, fitted.
	struct Curve {
		std::vector<int> gpus;   // measured counts, ascending
		std::vector<double> fit; // fitted epoch_s of each
		// Counts gpus.front()..gpus.back(): fitted or interpolated.
		std::vector<SpeedEstimate> inside;
		SpeedEstimate at(int g) const; // the rules above, any g >= 1
	};
	struct Model {
		std::map<int, Curve> curves; // by node count; only with rows
		// Median spread row / packed row, by extra nodes over packed.
		std::map<int, double> ratio_by_extra;
		// The same over every spread row; unset: no spread measured.
		std::optional<double> ratio_all;
	};
	void check(int model, int gpus) const;
	// The cost of spreading `gpus` over `nodes` for a model that measured
	// no spread: what the others measured there, else spread_cost_.
	double unmeasured_ratio(int gpus, int nodes) const;

	Cluster cluster_;
	std::vector<Model> models_;
	// (gpus, nodes) -> median spread / packed over the models that
	// measured both, at least 1.
	std::map<std::pair<int, int>, double> site_ratio_;
	double spread_cost_;
};

// The monotone fit on its own: isotonic (non-increasing) least-squares
// regression of log(epoch_s), equal weights, by pool-adjacent-violators.
// Values the fit does not pool come back bit for bit; so does input that is
// already non-increasing.  std::invalid_argument on a value that is not a
// positive finite number.
std::vector<double> fit_non_increasing(const std::vector<double> &epoch_s);

} // namespace omru

#endif
