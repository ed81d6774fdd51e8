// data_loader.hpp - the training data path: a pool of worker threads that
// decode, augment and normalise images (CIFAR-10 records or JPEG files, a
// SampleSet) into batches ahead of the training step, through a bounded
// prefetch queue.  The pool can be resized while an epoch runs (the
// data-loader CPU share of A-Dloader), and it measures how long the
// training step waits for data and how fast each worker prepares images.
#ifndef OMRU_TRAINER_DATA_LOADER_HPP
#define OMRU_TRAINER_DATA_LOADER_HPP

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include <torch/torch.h>

#include "cifar_samples.hpp"
#include "sample_set.hpp"

namespace omru {
namespace train {

struct Batch {
	torch::Tensor images;          // [B, 3, S, S] float32, normalised
	torch::Tensor labels;          // [B] int64
	std::vector<uint32_t> indices; // the data set records it holds
	size_t number = 0;             // position in this rank's epoch, 0..
};

struct LoaderOptions {
	size_t batch_size = 128;  // per rank
	int workers = 2;          // 1..256
	size_t prefetch = 4;      // batches ready ahead of the consumer, >= 1
	bool augment = true;      // the set's random crop + horizontal flip
	uint64_t seed = 1;
	int rank = 0;             // distributed sampler: this rank's shard
	int world = 1;
};

// What the loader has done since its last reset_wait().
struct LoaderCounters {
	double wait_s = 0;   // next() blocked for a batch
	double busy_s = 0;   // workers preparing batches, summed over workers
	uint64_t images = 0; // images the workers prepared
};

// Sampling: every epoch is a permutation of the data set seeded by (seed,
// epoch); with `world` ranks it is cut to a multiple of world x batch_size
// (the tail is dropped, as DistributedSampler + drop_last do) and rank r
// takes every world-th sample from r.  So every rank gets the same number of
// full batches and the ranks' shards are disjoint.
//
// Batches are handed out in order (Batch::number 0, 1, ...) whatever the
// number of workers: workers claim batch numbers from a shared counter and
// the consumer takes them in sequence.  Resizing never loses or repeats a
// sample: a retired worker finishes the batch it claimed.
class DataLoader {
    public:
	// Throws std::invalid_argument for bad options (batch_size 0, workers
	// out of range, rank >= world, a data set smaller than one global
	// batch).
	DataLoader(std::shared_ptr<const SampleSet> data, LoaderOptions opts);
	DataLoader(std::shared_ptr<const CifarSet> data, LoaderOptions opts)
		: DataLoader(std::make_shared<CifarSamples>(std::move(data)), opts)
	{
	}
	~DataLoader(); // stops and joins the workers

	// Starts epoch `epoch` (any order; a running epoch is abandoned).
	// `skip` samples of the epoch's permutation were trained already (a
	// run stopped mid-epoch and resumed, maybe on another world size):
	// the epoch goes on from there with the whole global batches left.
	void start_epoch(int epoch, size_t skip = 0);
	// Global batches of the epoch started last (batches_per_epoch() less
	// those `skip` covered).
	size_t batches_this_epoch() const;
	// The next batch of this epoch, nothing at its end.  Blocks while the
	// workers have not produced it; that time is counted as waiting.
	std::optional<Batch> next();
	// Changes the number of worker threads now (1..256).
	void set_workers(int n);
	int workers() const;
	size_t batches_per_epoch() const;
	// Seconds next() spent blocked since the last reset.
	double wait_seconds() const;
	LoaderCounters counters() const;
	// Zeroes the counters.
	void reset_wait();

    private:
	struct Impl;
	std::unique_ptr<Impl> impl_;
};

} // namespace train
} // namespace omru

#endif
