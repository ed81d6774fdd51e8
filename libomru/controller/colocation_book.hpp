// colocation_book.hpp - what its neighbours cost each running OMRU job so
// far, as the plan prices it (the co-location table, omru.conf
// ColocationFile=, with the job's user's own measurements: pair_prices.hpp):
// at every plan the factor each running
// job runs at now (its distinct OMRU neighbours on any of its nodes) is
// noted, and integrated over the time until the next.  When the job ends,
// its time-weighted mean factor is what its real epoch time is compared
// with (a job slowed by its neighbours as the table says is not a wrong
// curve: without this, the controller's runtime correction would learn the
// interference into the model's curve and the plan would price it twice),
// and a job that ran beside one other model all along is a measurement of
// that pair for its user.
#ifndef OMRU_CONTROLLER_COLOCATION_BOOK_HPP
#define OMRU_CONTROLLER_COLOCATION_BOOK_HPP

#include <cstdint>
#include <string>
#include <unordered_map>

#include "controller/snapshot.hpp"
#include "controller/pair_prices.hpp"

namespace omru {
namespace controller {

class ColocationBook {
    public:
	// The running jobs of `snap` as they sit now; jobs no longer running
	// are kept until take() (their end arrives separately).
	void observe(const Snapshot &snap, const PairPrices &prices);

	struct Seen {
		double mean_factor = 1; // time-weighted, 1 when never seen
		// The one model it ran beside at every plan that saw it, "" when
		// it met none or more than one.
		std::string only_neighbour;
		double seen_s = 0; // time between the first and the last plan
		// Seen, and no plan found another OMRU job on its nodes.
		bool alone = false;
	};
	// The job ended at now_s: what it saw, forgotten here.
	Seen take(uint32_t job_id, double now_s);
	size_t size() const { return jobs_.size(); }

    private:
	struct Track {
		double first_s = 0, last_s = 0;
		double factor = 1;   // since last_s
		double integral = 0; // factor x time, first_s to last_s
		std::string neighbour; // the one model met so far
		bool several = false;  // met more than one model, or none once
		bool met = false;      // met any other OMRU job
	};
	std::unordered_map<uint32_t, Track> jobs_;
};

} // namespace controller
} // namespace omru

#endif
