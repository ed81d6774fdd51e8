// data_loader.cpp - see data_loader.hpp.
//
// The pool, all its state under one mutex:
//   - An epoch is an immutable Shard (this rank's record indices) shared by
//     pointer with the workers and tagged with a generation number.  A
//     worker copies the pointer when it claims a batch, so start_epoch()
//     can replace the shard while old batches are still being filled; a
//     batch of an old generation is dropped instead of published.
//   - Workers claim batch numbers from next_claim and publish finished
//     batches into `ready` (keyed by number); next() takes exactly
//     next_out.  Claims run at most prefetch + workers batches ahead of
//     next_out, and a batch is published only when it is less than
//     prefetch ahead (a worker that finished early holds it until then):
//     at most `prefetch` finished batches wait in `ready`, yet every
//     worker stays busy while the workers are the slow side.  Batch
//     next_out is always claimable or claimed and always publishable, so
//     the consumer never waits on a worker that waits on the consumer.
//   - Resizing: `live` counts the workers still claiming, `want` the
//     target.  A worker compares them only between batches, so a retiring
//     worker publishes the batch it claimed (nothing lost) and a batch
//     number is claimed once (nothing repeated).  Exited threads put their
//     id in `dead` and are joined by the next set_workers() or by the
//     destructor: no thread outlives the loader.
//   - Shutdown: `stop` wakes every wait; a worker filling a batch (well
//     under a millisecond at batch 128) sees it when it next takes the lock.
//   - A worker's exception is kept and rethrown by next() for the epoch.
// Randomness (permutation, crops, flips) comes from splitmix64 keyed by
// (seed, epoch[, record]), never by which worker ran, so the output is
// the same for any number of workers.
#include "trainer/data_loader.hpp"
#include "trainer/batch_pool.hpp"
#include "trainer/splitmix.hpp"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>

namespace omru {
namespace train {
namespace {

constexpr int kMaxWorkers = 256;

using Rng = SplitMix;

// A key for (a, b, c) streams: mixing after each part keeps (1, 2) and
// (2, 1) apart.
uint64_t key(uint64_t a, uint64_t b, uint64_t c)
{
	return mix64(mix64(mix64(a + 0x5851f42d4c957f2dULL) ^ b) ^ c);
}

[[noreturn]] void bad(const std::string &msg)
{
	throw std::invalid_argument("data loader: " + msg);
}

void check_workers(int n)
{
	if (n < 1 || n > kMaxWorkers)
		bad("workers " + std::to_string(n) + " is not in 1.." +
		    std::to_string(kMaxWorkers));
}

struct Shard {
	uint64_t generation;
	int epoch;
	std::vector<uint32_t> records; // batches x batch_size
	size_t batches = 0;            // this epoch's (fewer when resumed)
};

} // namespace

struct DataLoader::Impl {
	std::shared_ptr<const SampleSet> data;
	LoaderOptions opts;
	size_t batches = 0; // per rank and epoch
	std::unique_ptr<BufferPool> images_pool, labels_pool;

	mutable std::mutex mu;
	std::condition_variable work_cv;  // claim, publish, resize or stop
	std::condition_variable ready_cv; // next_out published, or an error
	std::shared_ptr<const Shard> shard; // null before the first epoch
	uint64_t generation = 0;
	size_t next_claim = 0, next_out = 0;
	std::map<size_t, Batch> ready;
	std::exception_ptr error; // a worker's, rethrown by next()
	int want = 0, live = 0;
	bool stop = false;
	std::vector<std::thread> threads;
	std::vector<std::thread::id> dead;
	LoaderCounters counters;

	// Every batch in flight (claimed, ready, held by the trainer, or
	// being dropped) has its buffer; returned ones beyond this many are
	// freed.
	size_t pool_keep(int workers) const
	{
		return opts.prefetch + static_cast<size_t>(workers) + 2;
	}
	void worker();
	Batch fill(const Shard &s, size_t number) const;
	void reap(std::unique_lock<std::mutex> &lk);
	void spawn();
	void shutdown();
};

Batch DataLoader::Impl::fill(const Shard &s, size_t number) const
{
	const size_t B = opts.batch_size;
	const size_t image_floats = 3 * static_cast<size_t>(data->side()) * data->side();
	Batch b;
	b.number = number;
	b.indices.assign(s.records.begin() + number * B,
			 s.records.begin() + (number + 1) * B);
	// Filled in place through data_ptr: no per-image tensors, no torch
	// ops (which would start intra-op threads in every worker).
	b.images = images_pool->take();
	b.labels = labels_pool->take();
	float *img = b.images.data_ptr<float>();
	int64_t *lab = b.labels.data_ptr<int64_t>();
	for (size_t i = 0; i < B; i++) {
		uint32_t r = b.indices[i];
		lab[i] = data->label(r);
		// Keyed by the record, not by the worker or position.
		Rng rng(key(opts.seed, static_cast<uint64_t>(s.epoch), r));
		data->load(r, opts.augment, rng, img + i * image_floats);
	}
	return b;
}

void DataLoader::Impl::worker()
{
	std::unique_lock<std::mutex> lk(mu);
	for (;;) {
		if (stop)
			break;
		if (live > want) {
			live--;
			break;
		}
		size_t window = opts.prefetch + static_cast<size_t>(want);
		if (!shard || error || next_claim >= shard->batches ||
		    next_claim >= next_out + window) {
			work_cv.wait(lk);
			continue;
		}
		std::shared_ptr<const Shard> s = shard;
		size_t number = next_claim++;
		lk.unlock();
		Batch b;
		std::exception_ptr err;
		auto t0 = std::chrono::steady_clock::now();
		try {
			b = fill(*s, number);
		} catch (...) {
			err = std::current_exception();
		}
		std::chrono::duration<double> busy = std::chrono::steady_clock::now() - t0;
		lk.lock();
		counters.busy_s += busy.count();
		if (!err)
			counters.images += opts.batch_size;
		if (err) {
			if (s->generation == generation && !error)
				error = err;
			ready_cv.notify_all();
			work_cv.notify_all();
			continue;
		}
		// Publish only within the prefetch window; next_out always is.
		work_cv.wait(lk, [&] {
			return stop || s->generation != generation ||
			       number < next_out + opts.prefetch;
		});
		if (stop || s->generation != generation)
			continue; // abandoned epoch: drop it
		ready.emplace(number, std::move(b));
		if (number == next_out)
			ready_cv.notify_all();
	}
	dead.push_back(std::this_thread::get_id());
	// The lock is released on return, after which the thread touches
	// nothing of the loader: joining it under the lock is safe.
}

// Joins the threads that have left worker().
void DataLoader::Impl::reap(std::unique_lock<std::mutex> &lk)
{
	for (std::thread::id id : dead) {
		auto it = std::find_if(
			threads.begin(), threads.end(),
			[&](const std::thread &t) { return t.get_id() == id; });
		it->join();
		threads.erase(it);
	}
	dead.clear();
}

void DataLoader::Impl::spawn()
{
	threads.emplace_back([this] { worker(); });
	live++;
}

// Stops and joins every worker.
void DataLoader::Impl::shutdown()
{
	{
		std::lock_guard<std::mutex> lk(mu);
		stop = true;
	}
	work_cv.notify_all();
	// Without the lock: a worker needs it to leave worker().
	for (std::thread &t : threads)
		t.join();
	threads.clear();
}

DataLoader::DataLoader(std::shared_ptr<const SampleSet> data, LoaderOptions opts)
	: impl_(std::make_unique<Impl>())
{
	if (!data || data->size() == 0 || data->side() < 1)
		bad("no data set, or an empty one");
	if (opts.batch_size == 0)
		bad("batch_size must be >= 1");
	check_workers(opts.workers);
	if (opts.prefetch == 0)
		bad("prefetch must be >= 1");
	if (opts.world < 1)
		bad("world " + std::to_string(opts.world) + " is not >= 1");
	if (opts.rank < 0 || opts.rank >= opts.world)
		bad("rank " + std::to_string(opts.rank) + " is not in 0.." +
		    std::to_string(opts.world - 1));
	size_t global = opts.batch_size * static_cast<size_t>(opts.world);
	if (data->size() < global)
		bad(std::to_string(data->size()) +
		    " records are fewer than one global batch of " +
		    std::to_string(global));
	impl_->data = std::move(data);
	impl_->opts = opts;
	impl_->batches = impl_->data->size() / global;
	size_t keep = impl_->pool_keep(opts.workers);
	const int64_t n = static_cast<int64_t>(opts.batch_size), side = impl_->data->side();
	impl_->images_pool = std::make_unique<BufferPool>(
		std::vector<int64_t>{ n, 3, side, side }, torch::kFloat32, keep);
	impl_->labels_pool = std::make_unique<BufferPool>(std::vector<int64_t>{ n },
							  torch::kInt64, keep);
	try {
		set_workers(opts.workers);
	} catch (...) {
		// A thread could not be started: those that were must not be
		// destroyed joinable (std::terminate).
		impl_->shutdown();
		throw;
	}
}

DataLoader::~DataLoader()
{
	impl_->shutdown();
}

void DataLoader::start_epoch(int epoch, size_t skip)
{
	const LoaderOptions &o = impl_->opts;
	size_t n = impl_->data->size();
	// Fisher-Yates over all records, seeded by (seed, epoch); computed
	// before taking the lock so the workers keep going meanwhile.
	std::vector<uint32_t> perm(n);
	for (size_t i = 0; i < n; i++)
		perm[i] = static_cast<uint32_t>(i);
	Rng rng(key(o.seed, static_cast<uint64_t>(epoch), 0x7065726dULL));
	for (size_t i = n; i > 1; i--)
		std::swap(perm[i - 1],
			  perm[rng.below(static_cast<uint32_t>(i))]);
	// Cut to whole global batches; rank r takes r, r + world, ...  Batch
	// k of every rank covers positions [k, k + 1) x world x batch of the
	// permutation, so after k steps on any world size the first k x global
	// positions are done: a resumed epoch starts at `skip`.
	auto s = std::make_shared<Shard>();
	s->epoch = epoch;
	size_t world = static_cast<size_t>(o.world);
	size_t global = o.batch_size * world;
	skip = std::min(skip, n);
	size_t batches = std::min(impl_->batches, (n - skip) / global);
	size_t total = batches * global;
	s->batches = batches;
	s->records.reserve(total / world);
	for (size_t i = static_cast<size_t>(o.rank); i < total; i += world)
		s->records.push_back(perm[skip + i]);

	std::lock_guard<std::mutex> lk(impl_->mu);
	s->generation = ++impl_->generation;
	impl_->shard = std::move(s);
	impl_->next_claim = impl_->next_out = 0;
	impl_->ready.clear();
	impl_->error = nullptr;
	impl_->work_cv.notify_all();
}

std::optional<Batch> DataLoader::next()
{
	Impl &d = *impl_;
	std::unique_lock<std::mutex> lk(d.mu);
	if (!d.shard || d.next_out >= d.shard->batches)
		return std::nullopt;
	auto it = d.ready.find(d.next_out);
	if (it == d.ready.end() && !d.error) {
		auto t0 = std::chrono::steady_clock::now();
		d.ready_cv.wait(lk, [&] {
			it = d.ready.find(d.next_out);
			return it != d.ready.end() || d.error;
		});
		std::chrono::duration<double> dt =
			std::chrono::steady_clock::now() - t0;
		d.counters.wait_s += dt.count();
	}
	if (it == d.ready.end())
		std::rethrow_exception(d.error);
	Batch b = std::move(it->second);
	d.ready.erase(it);
	d.next_out++;
	// Frees a claim slot and a publish slot.
	d.work_cv.notify_all();
	return b;
}

void DataLoader::set_workers(int n)
{
	check_workers(n);
	Impl &d = *impl_;
	std::unique_lock<std::mutex> lk(d.mu);
	d.reap(lk);
	d.want = n;
	while (d.live < d.want)
		d.spawn();
	if (d.images_pool) {
		d.images_pool->set_keep(d.pool_keep(n));
		d.labels_pool->set_keep(d.pool_keep(n));
	}
	// Idle surplus workers wake up and leave; busy ones after their batch.
	d.work_cv.notify_all();
}

int DataLoader::workers() const
{
	std::lock_guard<std::mutex> lk(impl_->mu);
	return impl_->want;
}

size_t DataLoader::batches_per_epoch() const
{
	return impl_->batches;
}

size_t DataLoader::batches_this_epoch() const
{
	std::lock_guard<std::mutex> lk(impl_->mu);
	return impl_->shard ? impl_->shard->batches : impl_->batches;
}

double DataLoader::wait_seconds() const
{
	std::lock_guard<std::mutex> lk(impl_->mu);
	return impl_->counters.wait_s;
}

LoaderCounters DataLoader::counters() const
{
	std::lock_guard<std::mutex> lk(impl_->mu);
	return impl_->counters;
}

void DataLoader::reset_wait()
{
	std::lock_guard<std::mutex> lk(impl_->mu);
	impl_->counters = LoaderCounters();
}

} // namespace train
} // namespace omru
