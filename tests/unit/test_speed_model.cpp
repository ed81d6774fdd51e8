// test_speed_model.cpp - the planner's speed model: the monotone fit by hand;
// the properties speed_model.hpp promises (each node count's curve monotone,
// clean input exact, packed rising only at node boundaries, best() the
// fastest spread) on noisy, clean and hand-made tables; the confidence flags
// and estimates by hand; and the fit on the shared (noisy) T4 profiles.
#include "check_cxx.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

#include "model/csv_table.hpp"
#include "profile/speed_model.hpp"

using namespace omru;

#define ck_assert_invalid(EXPR)                                               \
	do {                                                                  \
		bool thrown_ = false;                                         \
		try {                                                         \
			(void)(EXPR);                                         \
		} catch (const std::invalid_argument &) {                    \
			thrown_ = true;                                       \
		}                                                             \
		ck_assert_msg(thrown_, "%s did not throw invalid_argument",   \
			      #EXPR);                                         \
	} while (0)

// Equal up to rounding (the power law goes through log and exp).
static bool near(double a, double b)
{
	return std::fabs(a - b) <= 1e-12 * std::fabs(b);
}

static void ck_estimate(SpeedEstimate e, double epoch_s, Confidence c)
{
	ck_assert_msg(near(e.epoch_s, epoch_s), "epoch_s %.17g, expected %.17g",
		      e.epoch_s, epoch_s);
	ck_assert_string_eq(confidence_name(e.confidence), confidence_name(c));
}

START_TEST(test_fit_keeps_clean_input_bit_for_bit)
{
	// Values log/exp would not give back exactly.
	std::vector<double> clean = { 0.1 * 3, 0.1 * 3, 0.7 / 3, 1e-3 / 7, 1e-3 / 7 };
	std::vector<double> fit = fit_non_increasing(clean);
	ck_assert_int_eq(fit.size(), clean.size());
	for (size_t i = 0; i < clean.size(); i++)
		ck_assert(fit[i] == clean[i]);
}
END_TEST

START_TEST(test_fit_pools_a_violating_pair_to_its_geometric_mean)
{
	std::vector<double> fit = fit_non_increasing({ 10, 6, 8, 3 });
	ck_assert_int_eq(fit.size(), 4);
	ck_assert(fit[0] == 10);
	ck_assert(near(fit[1], std::sqrt(48.0)));
	ck_assert(fit[2] == fit[1]);
	ck_assert(fit[3] == 3);
}
END_TEST

START_TEST(test_fit_pools_backwards_across_blocks)
{
	// 1 < 2 < 4: each new point pools with everything before it.
	std::vector<double> fit = fit_non_increasing({ 1, 2, 4 });
	for (double f : fit)
		ck_assert(near(f, 2.0));
	// 4 pools with 3 (sqrt 12 = 3.46), then 5 with that block.
	fit = fit_non_increasing({ 9, 3, 4, 5, 1 });
	ck_assert(fit[0] == 9);
	for (int i = 1; i <= 3; i++)
		ck_assert(near(fit[i], std::cbrt(60.0)));
	ck_assert(fit[4] == 1);
}
END_TEST

START_TEST(test_fit_is_monotone_on_noisy_input)
{
	std::vector<double> noisy = { 5, 7, 3, 4, 4.5, 1, 2, 0.5, 0.6, 0.55 };
	std::vector<double> fit = fit_non_increasing(noisy);
	ck_assert_int_eq(fit.size(), noisy.size());
	for (size_t i = 1; i < fit.size(); i++)
		ck_assert(fit[i] <= fit[i - 1]);
}
END_TEST

START_TEST(test_fit_of_one_value_empty_and_all_equal)
{
	std::vector<double> one = fit_non_increasing({ 7.5 });
	ck_assert_int_eq(one.size(), 1);
	ck_assert(one[0] == 7.5);
	ck_assert(fit_non_increasing({}).empty());
	std::vector<double> same = fit_non_increasing({ 0.1 * 3, 0.1 * 3, 0.1 * 3 });
	for (double f : same)
		ck_assert(f == 0.1 * 3);
}
END_TEST

START_TEST(test_fit_rejects_values_that_are_not_times)
{
	ck_assert_invalid(fit_non_increasing({ 1, 0 }));
	ck_assert_invalid(fit_non_increasing({ -1 }));
	ck_assert_invalid(fit_non_increasing({ 2, NAN }));
	ck_assert_invalid(fit_non_increasing({ INFINITY }));
}
END_TEST

// The properties speed_model.hpp promises, on any table and cluster.  Curve k
// of model m is every row that spans exactly k nodes (a row without a node
// count spans min_nodes(g)); its counts, ascending.
static std::vector<int> curve_counts(const ProfileTable &p, const Cluster &c,
				     int m, int k)
{
	std::vector<int> out;
	for (int g : p.counts(m)) {
		int kmin = c.min_nodes(g);
		if (k < kmin || k > g)
			continue;
		auto e = p.epoch_s(m, g, k), no_nodes = p.epoch_s(m, g, 0);
		if (e && (k == kmin || !no_nodes || *e != *no_nodes))
			out.push_back(g);
	}
	return out;
}

struct FitCounts {
	int kept = 0, moved = 0;
	double worst = 0; // largest |fitted / raw - 1| of a row in the cluster
};

static FitCounts check_properties(const ProfileTable &p, const Cluster &c)
{
	SpeedModel s(p, c);
	FitCounts n;
	for (int m = 0; m < s.model_count(); m++) {
		const char *name = p.model_name(m).c_str();
		for (int k = 1; k <= c.nodes; k++) {
			std::vector<int> counts = curve_counts(p, c, m, k);
			if (counts.empty())
				continue;
			// Every row of the curve: as measured, or moved by the
			// fit and flagged so.
			for (int g : counts) {
				double raw = *p.epoch_s(m, g, k);
				SpeedEstimate e = s.spread(m, g, k);
				if (e.epoch_s == raw) {
					ck_assert(e.confidence == Confidence::Measured);
					n.kept++;
				} else {
					ck_assert(e.confidence == Confidence::Interpolated);
					n.moved++;
					n.worst = std::max(n.worst, std::fabs(e.epoch_s / raw - 1));
				}
			}
			// Non-increasing wherever the value is the curve's own:
			// between its counts, and on the counts packed on k.
			double prev = INFINITY;
			int prev_g = 0;
			for (int g = 1; g <= s.max_gpus(); g++) {
				bool inside = g >= counts.front() && g <= counts.back();
				if (!inside && c.min_nodes(g) != k)
					continue;
				double t = s.spread(m, g, k).epoch_s;
				ck_assert_msg(t <= prev,
					      "%s over %d nodes: %.17g s on %d GPUs, %.17g on %d",
					      name, k, t, g, prev, prev_g);
				prev = t;
				prev_g = g;
			}
		}
		for (int g = 1; g <= s.max_gpus(); g++) {
			SpeedEstimate pk = s.packed(m, g);
			SpeedEstimate sp = s.spread(m, g, c.min_nodes(g));
			ck_assert(pk.epoch_s == sp.epoch_s && pk.confidence == sp.confidence);
			// packed() rises only where g needs one more node.
			if (g > 1 && c.min_nodes(g) == c.min_nodes(g - 1))
				ck_assert_msg(pk.epoch_s <= s.packed(m, g - 1).epoch_s,
					      "%s packed slower on %d GPUs than on %d",
					      name, g, g - 1);
			// best(): the fastest spread, never slower than packed.
			SpeedEstimate b = s.best(m, g);
			bool found = false;
			for (int k = c.min_nodes(g); k <= std::min(g, c.nodes); k++) {
				SpeedEstimate e = s.spread(m, g, k);
				ck_assert(b.epoch_s <= e.epoch_s);
				found |= e.epoch_s == b.epoch_s && e.confidence == b.confidence;
			}
			ck_assert(found);
			ck_assert(b.epoch_s <= pk.epoch_s);
		}
	}
	return n;
}

// Every span of 1..12 GPUs on 3x4, 100 k / g s with +-30% noise, so more
// GPUs on the same nodes are often slower; model n2 gives its packed rows
// without a node count.
static ProfileTable noisy_profiles()
{
	std::string csv = "model,gpus,epoch_s,nodes\n";
	uint32_t x = 12345;
	auto noise = [&x] {
		x = x * 1664525u + 1013904223u;
		return (x >> 8) / 16777216.0;
	};
	for (int m = 0; m < 3; m++)
		for (int g = 1; g <= 12; g++)
			for (int k = (g + 3) / 4; k <= std::min(g, 3); k++) {
				char t[32];
				snprintf(t, sizeof t, "%.17g",
					 100.0 * k / g * (0.7 + 0.6 * noise()));
				bool packed = k == (g + 3) / 4;
				csv += "n" + std::to_string(m) + "," + std::to_string(g) +
				       "," + t + "," +
				       (m == 2 && packed ? "" : std::to_string(k)) + "\n";
			}
	return ProfileTable::from_csv(CsvTable::parse("noisy.csv", csv));
}

START_TEST(test_each_node_count_is_monotone_on_noisy_input)
{
	ProfileTable p = noisy_profiles();
	ck_assert_int_eq(p.model_count(), 3);
	FitCounts n = check_properties(p, parse_cluster("3x4").value());
	// Noisy enough to pool, not so noisy that nothing is kept.
	ck_assert_int_gt(n.moved, 10);
	ck_assert_int_gt(n.kept, 10);
	ck_assert_int_eq(n.kept + n.moved, 3 * 21);
	// More nodes only add spans; the same curves.
	n = check_properties(p, parse_cluster("5x4").value());
	ck_assert_int_eq(n.kept + n.moved, 3 * 21);
}
END_TEST

START_TEST(test_clean_curves_come_back_bit_for_bit)
{
	// Non-increasing in g on each node count, slower over more nodes,
	// in values log and exp would not give back exactly.
	std::string csv = "model,gpus,epoch_s,nodes\n";
	for (int g = 1; g <= 12; g++)
		for (int k = (g + 3) / 4; k <= std::min(g, 3); k++) {
			char t[32];
			snprintf(t, sizeof t, "%.17g", k * 7.0 / 3 / std::sqrt(g) + 0.1 * k * k);
			csv += std::string("clean,") + std::to_string(g) + "," + t +
			       "," + std::to_string(k) + "\n";
		}
	ProfileTable p = ProfileTable::from_csv(CsvTable::parse("clean.csv", csv));
	Cluster c = parse_cluster("3x4").value();
	FitCounts n = check_properties(p, c);
	ck_assert_int_eq(n.moved, 0);
	ck_assert_int_eq(n.kept, 21);
	SpeedModel s(p, c);
	for (int g = 1; g <= 12; g++) {
		ck_assert(s.packed(0, g).epoch_s == *p.packed_epoch_s(0, g, c));
		ck_assert(s.best(0, g).epoch_s == *p.best_epoch_s(0, g, c));
	}
	// The jump onto a second node is kept, not pooled away.
	ck_assert(s.packed(0, 5).epoch_s > s.packed(0, 4).epoch_s);
}
END_TEST

// Cluster 3x4: min_nodes(g) = ceil(g / 4), at most 3 nodes, 12 GPUs.
//  a: clean; curve 1: 1, 4; curve 2: 4 (a spread), 6, 8; curve 3: 8 (a
//     spread, faster than packed), 9.
//  b: noisy on one node (3 slower than 2); one packed row on 2 nodes and one
//     on 3, both above their span's first count; no spread.
//  c: a single spread row and no packed row at all.
//  d: rows without a node count (packed) next to an exact spread row.
//  e: packed rows on one node and on three, none on two.
static const char kProfiles[] = "model,gpus,epoch_s,nodes\n"
				"a,1,8,\n"
				"a,4,2,1\n"
				"a,4,4,2\n"
				"a,6,3,\n"
				"a,8,2.4,2\n"
				"a,8,2,3\n"
				"a,9,1.5,\n"
				"b,2,10,1\n"
				"b,3,12,\n"
				"b,4,5,1\n"
				"b,6,9,2\n"
				"b,11,4,3\n"
				"c,4,20,3\n"
				"d,2,5,\n"
				"d,2,6,2\n"
				"d,4,3,\n"
				"d,6,4,\n"
				"e,4,6,\n"
				"e,12,1,\n";

static ProfileTable small_profiles()
{
	ProfileTable p = ProfileTable::from_csv(CsvTable::parse("p.csv", kProfiles));
	ck_assert_int_eq(p.model_count(), 5);
	return p;
}

static SpeedModel small_model()
{
	return SpeedModel(small_profiles(), parse_cluster("3x4").value());
}

// Power law through (a, ta) and (b, tb), at g.
static double power_law(double a, double ta, double b, double tb, double g)
{
	return ta * std::pow(tb / ta, std::log(g / a) / std::log(b / a));
}

START_TEST(test_measured_and_power_law_on_each_node_count)
{
	SpeedModel s = small_model();
	ck_assert_int_eq(s.model_count(), 5);
	ck_assert_int_eq(s.max_gpus(), 12);
	// One node: t(1) = 8, t(4) = 2, so t = 8 / g.
	ck_estimate(s.packed(0, 1), 8, Confidence::Measured);
	ck_estimate(s.packed(0, 2), 4, Confidence::Interpolated);
	ck_estimate(s.packed(0, 3), 8.0 / 3, Confidence::Interpolated);
	ck_estimate(s.packed(0, 4), 2, Confidence::Measured);
	// Two nodes: 4 (over 2 nodes), 6 and 8; not pooled with one node's 2.
	ck_estimate(s.packed(0, 5), power_law(4, 4, 6, 3, 5), Confidence::Interpolated);
	ck_estimate(s.packed(0, 6), 3, Confidence::Measured);
	ck_estimate(s.packed(0, 7), power_law(6, 3, 8, 2.4, 7), Confidence::Interpolated);
	ck_estimate(s.packed(0, 8), 2.4, Confidence::Measured);
	ck_estimate(s.packed(0, 9), 1.5, Confidence::Measured);
	// The step onto the second node is kept.
	ck_assert(s.packed(0, 5).epoch_s > s.packed(0, 4).epoch_s);
	// A spread row is on its own curve.
	ck_estimate(s.spread(0, 4, 2), 4, Confidence::Measured);
	ck_estimate(s.spread(0, 8, 3), 2, Confidence::Measured);
}
END_TEST

START_TEST(test_outside_the_measured_counts_of_a_node_count)
{
	SpeedModel s = small_model();
	// Above a packed span's largest count: no further speedup.
	for (int g = 10; g <= 12; g++)
		ck_estimate(s.packed(0, g), 1.5, Confidence::Extrapolated);
	// b, one node: 2 and 3 pool to sqrt(120); below 2, linear scaling.
	double t2 = std::sqrt(120.0);
	ck_estimate(s.packed(1, 1), 2 * t2, Confidence::Extrapolated);
	ck_estimate(s.packed(1, 2), t2, Confidence::Interpolated);
	ck_estimate(s.packed(1, 3), t2, Confidence::Interpolated);
	ck_estimate(s.packed(1, 4), 5, Confidence::Measured);
	// Two nodes, only 6 measured: linear scaling below, flat above.
	ck_estimate(s.packed(1, 5), 9 * 6 / 5.0, Confidence::Extrapolated);
	ck_estimate(s.packed(1, 6), 9, Confidence::Measured);
	ck_estimate(s.packed(1, 7), 9, Confidence::Extrapolated);
	ck_estimate(s.packed(1, 8), 9, Confidence::Extrapolated);
	// Three nodes, only 11.
	ck_estimate(s.packed(1, 9), 4 * 11 / 9.0, Confidence::Extrapolated);
	ck_estimate(s.packed(1, 10), 4.4, Confidence::Extrapolated);
	ck_estimate(s.packed(1, 11), 4, Confidence::Measured);
	ck_estimate(s.packed(1, 12), 4, Confidence::Extrapolated);
}
END_TEST

START_TEST(test_packed_rises_only_at_node_boundaries)
{
	ProfileTable p = small_profiles();
	check_properties(p, parse_cluster("3x4").value());
	check_properties(p, parse_cluster("8x4").value());
	check_properties(p, parse_cluster("2x8").value());
	check_properties(p, parse_cluster("12x1").value());
}
END_TEST

START_TEST(test_spread_off_its_curve_scaled_by_the_median_ratio)
{
	SpeedModel s = small_model();
	// a's measured spreads one node wider than packed: 4 / 2 (4 GPUs) and
	// 2 / 2.4 (8 GPUs); median 17 / 12.  No spread two nodes wider: the
	// median of all, the same.
	double r = (2 + 2 / 2.4) / 2;
	ck_estimate(s.spread(0, 2, 2), 4 * r, Confidence::Extrapolated);
	ck_estimate(s.spread(0, 4, 3), 2 * r, Confidence::Extrapolated);
	// 5 over 3 nodes is below curve 3's counts (8, 9).
	ck_estimate(s.spread(0, 5, 3), power_law(4, 4, 6, 3, 5) * r,
		    Confidence::Extrapolated);
	ck_estimate(s.spread(0, 6, 3), 3 * r, Confidence::Extrapolated);
	// b measured no spread: a's 4 over 2 nodes (4 / 2) where a measured
	// that spread, else the default cost per extra node.
	ck_estimate(s.spread(1, 4, 2), 5 * 2.0, Confidence::Extrapolated);
	ck_estimate(s.spread(1, 6, 3), 9 * 1.25, Confidence::Extrapolated);
}
END_TEST

// Cluster 3x4.  x, y, z measured 2 GPUs over 2 nodes at 1.1, 1.5 and 2 times
// packed; w measured no spread; g (gain) and h spread faster than packed.
static const char kSpreads[] = "model,gpus,epoch_s,nodes\n"
			       "x,2,10,1\nx,2,11,2\n"
			       "y,2,10,1\ny,2,15,2\n"
			       "z,2,10,1\nz,2,20,2\n"
			       "w,1,20,\nw,2,10,\nw,3,7,\n"
			       "g,3,10,1\ng,3,8,2\n"
			       "h,3,10,1\nh,3,9,2\n";

START_TEST(test_unmeasured_spread_borrows_the_median_of_other_models)
{
	ProfileTable p = ProfileTable::from_csv(CsvTable::parse("s.csv", kSpreads));
	SpeedModel s(p, parse_cluster("3x4").value());
	int w = p.model_id("w");
	// The median of x, y and z at 2 GPUs over 2 nodes.
	ck_estimate(s.spread(w, 2, 2), 10 * 1.5, Confidence::Extrapolated);
	// Nobody measured 3 GPUs over 3 nodes: the default cost, once per
	// extra node.
	ck_estimate(s.spread(w, 3, 3), 7 * 1.25 * 1.25, Confidence::Extrapolated);
}
END_TEST

START_TEST(test_a_gain_other_models_measured_is_not_borrowed)
{
	ProfileTable p = ProfileTable::from_csv(CsvTable::parse("s.csv", kSpreads));
	SpeedModel s(p, parse_cluster("3x4").value());
	// g and h: 3 GPUs over 2 nodes at 0.8 and 0.9 of packed: w is priced
	// at packed there, never faster.
	ck_estimate(s.spread(p.model_id("w"), 3, 2), 7, Confidence::Extrapolated);
	// Their own spreads stay as measured.
	ck_estimate(s.spread(p.model_id("g"), 3, 2), 8, Confidence::Measured);
}
END_TEST

START_TEST(test_spread_cost_prices_spreads_nobody_measured)
{
	ProfileTable p = ProfileTable::from_csv(
		CsvTable::parse("p.csv", "model,gpus,epoch_s\nm,1,30\nm,3,10\n"));
	Cluster c = parse_cluster("3x4").value();
	ck_estimate(SpeedModel(p, c).spread(0, 3, 2), 10 * 1.25, Confidence::Extrapolated);
	ck_estimate(SpeedModel(p, c).spread(0, 3, 3), 10 * 1.25 * 1.25,
		    Confidence::Extrapolated);
	ck_estimate(SpeedModel(p, c, 1.5).spread(0, 3, 3), 10 * 1.5 * 1.5,
		    Confidence::Extrapolated);
	// 1: spreading is free, as before SpreadCost.
	ck_estimate(SpeedModel(p, c, 1.0).spread(0, 3, 3), 10, Confidence::Extrapolated);
	// best() then keeps the packed span.
	ck_estimate(SpeedModel(p, c).best(0, 3), 10, Confidence::Measured);
	ck_assert_invalid(SpeedModel(p, c, 0.9));
	ck_assert_invalid(SpeedModel(p, c, NAN));
	ck_assert_invalid(SpeedModel(p, c, INFINITY));
}
END_TEST

START_TEST(test_best_is_the_fastest_spread)
{
	SpeedModel s = small_model();
	// 8 GPUs are faster over 3 nodes (measured) than packed on 2.
	ck_estimate(s.best(0, 8), 2, Confidence::Measured);
	ck_estimate(s.packed(0, 8), 2.4, Confidence::Measured);
	ck_estimate(s.best(0, 4), 2, Confidence::Measured);
	ck_estimate(s.best(0, 5), power_law(4, 4, 6, 3, 5), Confidence::Interpolated);
	// Not monotone: every spread of 5 is slower than 4 on one node.
	ck_assert(s.best(0, 5).epoch_s > s.best(0, 4).epoch_s);
	// A tie goes to the fewest nodes.
	ck_estimate(s.best(2, 4), 20, Confidence::Extrapolated);
}
END_TEST

START_TEST(test_a_node_count_without_rows_borrows_the_nearest_curve)
{
	SpeedModel s = small_model();
	// c's only row: 4 GPUs over 3 nodes.  Curve 3 prices every span that
	// has no row: linear scaling below 4, flat above, never Measured.
	ck_estimate(s.packed(2, 1), 80, Confidence::Extrapolated);
	ck_estimate(s.packed(2, 2), 40, Confidence::Extrapolated);
	ck_estimate(s.packed(2, 4), 20, Confidence::Extrapolated);
	ck_estimate(s.packed(2, 5), 20, Confidence::Extrapolated);
	ck_estimate(s.packed(2, 12), 20, Confidence::Extrapolated);
	ck_estimate(s.spread(2, 4, 3), 20, Confidence::Measured);
	// No packed row to measure a penalty against: a's 4 over 2 nodes
	// (4 / 2), else the default cost.
	ck_estimate(s.spread(2, 4, 2), 20 * 2.0, Confidence::Extrapolated);
	ck_estimate(s.spread(2, 5, 3), 20 * 1.25, Confidence::Extrapolated);
	// e has rows on one node and on three: two nodes borrow from one
	// (fewer nodes first), flat at its 4 GPUs, not scaled down from 12.
	for (int g = 5; g <= 8; g++)
		ck_estimate(s.packed(4, g), 6, Confidence::Extrapolated);
	ck_estimate(s.packed(4, 9), 12 / 9.0, Confidence::Extrapolated);
	ck_estimate(s.packed(4, 12), 1, Confidence::Measured);
}
END_TEST

START_TEST(test_a_row_without_nodes_is_packed_not_a_spread)
{
	ProfileTable p = small_profiles();
	SpeedModel s(p, parse_cluster("3x4").value());
	// Curve 1: 2 and 4 (no node count); curve 2: 2 (exact) and 6 (no
	// node count: 6 GPUs need 2 nodes of 4).
	ck_estimate(s.packed(3, 1), 10, Confidence::Extrapolated);
	ck_estimate(s.packed(3, 2), 5, Confidence::Measured);
	ck_estimate(s.packed(3, 3), power_law(2, 5, 4, 3, 3), Confidence::Interpolated);
	ck_estimate(s.packed(3, 4), 3, Confidence::Measured);
	ck_estimate(s.spread(3, 2, 2), 6, Confidence::Measured);
	ck_estimate(s.spread(3, 3, 2), power_law(2, 6, 6, 4, 3), Confidence::Interpolated);
	ck_estimate(s.spread(3, 4, 2), power_law(2, 6, 6, 4, 4), Confidence::Interpolated);
	ck_estimate(s.packed(3, 5), power_law(2, 6, 6, 4, 5), Confidence::Interpolated);
	ck_estimate(s.packed(3, 6), 4, Confidence::Measured);
	ck_estimate(s.packed(3, 8), 4, Confidence::Extrapolated);
	// No row on 3 nodes: curve 2's widest time.
	ck_estimate(s.packed(3, 9), 4, Confidence::Extrapolated);
	// (4, 3) has no row of its own: 3 x 6/5, not the packed 3.
	ck_estimate(s.spread(3, 4, 3), 3 * 1.2, Confidence::Extrapolated);
	ck_estimate(s.spread(3, 6, 3), 4 * 1.2, Confidence::Extrapolated);
	// On nodes of 8, 6 GPUs fit on one: the 4 s row is packed on one node,
	// after 4 GPUs' 3 s, and the two pool.
	SpeedModel wide(p, parse_cluster("2x8").value());
	ck_estimate(wide.packed(3, 2), 5, Confidence::Measured);
	ck_estimate(wide.packed(3, 4), std::sqrt(12.0), Confidence::Interpolated);
	ck_estimate(wide.packed(3, 6), std::sqrt(12.0), Confidence::Interpolated);
}
END_TEST

START_TEST(test_invalid_arguments_throw)
{
	SpeedModel s = small_model();
	ck_assert_invalid(s.packed(-1, 1));
	ck_assert_invalid(s.packed(5, 1));
	ck_assert_invalid(s.packed(0, 0));
	ck_assert_invalid(s.packed(0, 13));
	ck_assert_invalid(s.spread(0, 13, 3));
	ck_assert_invalid(s.spread(0, 5, 1)); // fewer nodes than can hold 5
	ck_assert_invalid(s.spread(0, 2, 3)); // more nodes than GPUs
	ck_assert_invalid(s.spread(0, 12, 4)); // more nodes than the cluster
	ck_assert_invalid(s.spread(5, 1, 1));
	ck_assert_invalid(s.best(5, 1));
	ck_assert_invalid(s.best(0, 0));
	ck_assert_invalid(s.best(0, 13));
	ck_assert_invalid(SpeedModel(small_profiles(), Cluster{}));
}
END_TEST

START_TEST(test_confidence_names)
{
	ck_assert_str_eq(confidence_name(Confidence::Measured), "measured");
	ck_assert_str_eq(confidence_name(Confidence::Interpolated), "interpolated");
	ck_assert_str_eq(confidence_name(Confidence::Extrapolated), "extrapolated");
}
END_TEST

// make check sets OMRU_SRCDIR; run by hand from build/, the tree is above.
static ProfileTable t4_profiles()
{
	const char *src = getenv("OMRU_SRCDIR");
	return ProfileTable::from_csv(CsvTable::read_file(
		std::string(src ? src : "..") + "/data/profiles-t4.csv"));
}

START_TEST(test_t4_keeps_the_step_onto_a_second_node)
{
	ProfileTable p = t4_profiles();
	SpeedModel s(p, parse_cluster("4x4").value());
	// data/profiles-t4.csv: 4 GPUs on one node, 5 over two.
	struct {
		const char *model;
		double t4, t5;
	} rows[] = { { "t4-yolov3", 259.4792, 581.2036 },
		     { "t4-ncf", 8.6919, 14.3274 },
		     { "t4-bert", 1767.7973, 3190.7450 } };
	for (const auto &r : rows) {
		int m = p.model_id(r.model);
		ck_assert_int_ge(m, 0);
		ck_assert(s.packed(m, 4).epoch_s == r.t4);
		ck_assert(s.packed(m, 4).confidence == Confidence::Measured);
		ck_assert(s.packed(m, 5).epoch_s == r.t5);
		ck_assert(s.packed(m, 5).confidence == Confidence::Measured);
		// So is every count on one node.
		for (int g = 1; g <= 4; g++)
			ck_assert(s.packed(m, g).epoch_s == *p.epoch_s(m, g, 1));
	}
}
END_TEST

START_TEST(test_t4_curves_are_monotone_and_mostly_as_measured)
{
	ProfileTable p = t4_profiles();
	ck_assert_int_eq(p.model_count(), 6);
	FitCounts n = check_properties(p, parse_cluster("4x4").value());
	// 204 rows, all within 4x4.  The data are noisy but mostly ordered
	// per node count; the fit pools only neighbours on one node count
	// (a fit across node counts moved yolov3's 4 GPUs by 55%).
	ck_assert_int_eq(n.kept + n.moved, 204);
	ck_assert_int_gt(n.kept, 190);
	ck_assert_int_gt(n.moved, 0);
	ck_assert(n.worst < 0.05);
	FitCounts wide = check_properties(p, parse_cluster("16x4").value());
	ck_assert_int_eq(wide.kept, n.kept);
	ck_assert_int_eq(wide.moved, n.moved);
}
END_TEST

START_TEST(test_t4_a_wider_cluster_adds_counts_and_spans_only)
{
	ProfileTable p = t4_profiles();
	SpeedModel s(p, parse_cluster("4x4").value());
	SpeedModel w(p, parse_cluster("16x4").value());
	for (int m = 0; m < s.model_count(); m++) {
		for (int g = 1; g <= 16; g++)
			for (int k = (g + 3) / 4; k <= std::min(g, 4); k++) {
				SpeedEstimate a = s.spread(m, g, k), b = w.spread(m, g, k);
				ck_assert(a.epoch_s == b.epoch_s && a.confidence == b.confidence);
			}
		// Beyond the profiled 16 GPUs: no further speedup.
		for (int g = 17; g <= 64; g++)
			ck_estimate(w.packed(m, g), s.packed(m, 16).epoch_s,
				    Confidence::Extrapolated);
	}
}
END_TEST

START_TEST(test_t4_best_prefers_a_faster_wider_spread)
{
	ProfileTable p = t4_profiles();
	Cluster c = parse_cluster("4x4").value();
	SpeedModel s(p, c);
	// bert on 11 GPUs is faster over 4 nodes than packed on 3.
	int bert = p.model_id("t4-bert");
	ck_estimate(s.best(bert, 11), *p.epoch_s(bert, 11, 4), Confidence::Measured);
	ck_assert(s.best(bert, 11).epoch_s < s.packed(bert, 11).epoch_s);
	// Every span of <= 16 GPUs is measured on 4x4; where the fit kept
	// every spread of g, best() is the table's best.
	for (int m = 0; m < s.model_count(); m++)
		for (int g = 1; g <= 16; g++) {
			bool kept = true;
			for (int k = c.min_nodes(g); k <= std::min(g, 4); k++)
				kept &= s.spread(m, g, k).confidence == Confidence::Measured;
			if (kept)
				ck_assert(s.best(m, g).epoch_s == *p.best_epoch_s(m, g, c));
		}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("speed_model");
	TCase *fit = tcase_create("fit_non_increasing");
	tcase_add_test(fit, test_fit_keeps_clean_input_bit_for_bit);
	tcase_add_test(fit, test_fit_pools_a_violating_pair_to_its_geometric_mean);
	tcase_add_test(fit, test_fit_pools_backwards_across_blocks);
	tcase_add_test(fit, test_fit_is_monotone_on_noisy_input);
	tcase_add_test(fit, test_fit_of_one_value_empty_and_all_equal);
	tcase_add_test(fit, test_fit_rejects_values_that_are_not_times);
	suite_add_tcase(s, fit);
	TCase *model = tcase_create("SpeedModel");
	tcase_add_test(model, test_each_node_count_is_monotone_on_noisy_input);
	tcase_add_test(model, test_clean_curves_come_back_bit_for_bit);
	tcase_add_test(model, test_measured_and_power_law_on_each_node_count);
	tcase_add_test(model, test_outside_the_measured_counts_of_a_node_count);
	tcase_add_test(model, test_packed_rises_only_at_node_boundaries);
	tcase_add_test(model, test_spread_off_its_curve_scaled_by_the_median_ratio);
	tcase_add_test(model, test_unmeasured_spread_borrows_the_median_of_other_models);
	tcase_add_test(model, test_a_gain_other_models_measured_is_not_borrowed);
	tcase_add_test(model, test_spread_cost_prices_spreads_nobody_measured);
	tcase_add_test(model, test_best_is_the_fastest_spread);
	tcase_add_test(model, test_a_node_count_without_rows_borrows_the_nearest_curve);
	tcase_add_test(model, test_a_row_without_nodes_is_packed_not_a_spread);
	tcase_add_test(model, test_invalid_arguments_throw);
	tcase_add_test(model, test_confidence_names);
	suite_add_tcase(s, model);
	TCase *t4 = tcase_create("T4 profiles");
	tcase_add_test(t4, test_t4_keeps_the_step_onto_a_second_node);
	tcase_add_test(t4, test_t4_curves_are_monotone_and_mostly_as_measured);
	tcase_add_test(t4, test_t4_a_wider_cluster_adds_counts_and_spans_only);
	tcase_add_test(t4, test_t4_best_prefers_a_faster_wider_spread);
	suite_add_tcase(s, t4);
	return run_suite(s);
}
