// loader_share.hpp - omru-train's side of the node's data-loader shares
// (spank_omru(8), A-Dloader): it follows the share the node gives it and
// reports what its loader and its step measure, so the node can re-share.
//
//   OMRU_LOADER_SHARE_FILE  one integer, loader workers per task; a thread
//                           looks every 250 ms and resizes the worker pool,
//                           so a new share takes effect within a second
//                           even when one step takes longer.
//   OMRU_LOADER_REPORT      the first task on each node writes, every few
//                           seconds of training, "workers=W samples_s=X
//                           wait=F rate=R" over the window since its last
//                           report: this task's samples/s, the fraction of
//                           the time its step waited for a batch, and the
//                           samples one worker prepares per second of work.
#ifndef OMRU_TRAINER_LOADER_SHARE_HPP
#define OMRU_TRAINER_LOADER_SHARE_HPP

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "data_loader.hpp"
#include "profile/loader_model.hpp"

namespace omru {
namespace train {

// The worker count in a share file: a whole number 1..256 alone on its
// line, else nothing (a missing or half-written file keeps what we have).
std::optional<int> read_share_file(const std::string &path);

// Resizes `loader` to the share file's count while it lives.
class ShareFollower {
    public:
	ShareFollower(std::string path, DataLoader &loader,
		      std::chrono::milliseconds period = std::chrono::milliseconds(250));
	~ShareFollower();
	ShareFollower(const ShareFollower &) = delete;
	ShareFollower &operator=(const ShareFollower &) = delete;

    private:
	void run();
	std::string path_;
	DataLoader &loader_;
	std::chrono::milliseconds period_;
	std::mutex mu_;
	std::condition_variable cv_;
	bool stop_ = false;
	std::thread thread_;
};

// Turns counters sampled during training into one LoaderSample per window
// of at least `min_window` seconds of training.  A window may span epochs:
// the loader's counters restart with each epoch (a new segment), and the
// time between epochs (allreduce, checkpoint) is not training, so it is
// left out; short epochs add up instead of never filling a window.
class LoaderWindow {
    public:
	explicit LoaderWindow(double min_window_s = 3) : min_s_(min_window_s) {}
	// The counters were reset (a new epoch): a new segment from now.
	void restart(const LoaderCounters &now, double wall_s);
	// After a step that consumed `samples`; RET a sample when the window
	// is long enough (and starts the next one), else nothing.
	std::optional<LoaderSample> step(uint64_t samples, int workers,
					 const LoaderCounters &now, double wall_s);
	// Training ended: the rest of the window, when it holds at least
	// `min_s` seconds of training (a job shorter than one window still
	// tells the node what it measured).
	std::optional<LoaderSample> finish(int workers, double min_s = 0.5);

    private:
	std::optional<LoaderSample> take(int workers);
	struct Totals {
		double wall_s = 0, wait_s = 0, busy_s = 0;
		uint64_t images = 0;
	};
	// What the current segment adds to acc_ so far.
	Totals segment() const;
	double min_s_;
	bool started_ = false;
	Totals acc_;             // finished segments of this window
	LoaderCounters base_, last_; // the segment's start and last step
	double base_wall_ = 0, last_wall_ = 0;
	uint64_t samples_ = 0;
};

// Writes the report atomically (temp file, rename); false on failure.
bool write_loader_report(const std::string &path, const LoaderSample &s);

} // namespace train
} // namespace omru

#endif
