// loader_share.cpp - see loader_share.hpp.
#include "trainer/loader_share.hpp"

#include <cstdio>
#include <fstream>
#include <sstream>

#include "loader/loader_entry.hpp"

namespace omru {
namespace train {

std::optional<int> read_share_file(const std::string &path)
{
	std::ifstream f(path);
	std::string line;
	if (!f || !std::getline(f, line) || line.empty() || line.size() > 3)
		return std::nullopt;
	int n = 0;
	for (char c : line) {
		if (c < '0' || c > '9')
			return std::nullopt;
		n = n * 10 + (c - '0');
	}
	if (n < 1 || n > 256)
		return std::nullopt;
	return n;
}

ShareFollower::ShareFollower(std::string path, DataLoader &loader,
			     std::chrono::milliseconds period)
	: path_(std::move(path)), loader_(loader), period_(period)
{
	thread_ = std::thread([this] { run(); });
}

ShareFollower::~ShareFollower()
{
	{
		std::lock_guard<std::mutex> lk(mu_);
		stop_ = true;
	}
	cv_.notify_all();
	thread_.join();
}

void ShareFollower::run()
{
	std::unique_lock<std::mutex> lk(mu_);
	while (!stop_) {
		lk.unlock();
		std::optional<int> n = read_share_file(path_);
		if (n && *n != loader_.workers()) {
			try {
				loader_.set_workers(*n);
			} catch (const std::exception &e) {
				// No thread could be started: keep training
				// with the workers we have; said once.
				std::fprintf(stderr, "omru-train: loader share %d: %s\n",
					     *n, e.what());
				return;
			}
		}
		lk.lock();
		cv_.wait_for(lk, period_, [this] { return stop_; });
	}
}

LoaderWindow::Totals LoaderWindow::segment() const
{
	Totals t;
	t.wall_s = last_wall_ - base_wall_;
	t.wait_s = last_.wait_s - base_.wait_s;
	t.busy_s = last_.busy_s - base_.busy_s;
	t.images = last_.images - base_.images;
	return t;
}

void LoaderWindow::restart(const LoaderCounters &now, double wall_s)
{
	if (started_) {
		Totals t = segment();
		acc_.wall_s += t.wall_s;
		acc_.wait_s += t.wait_s;
		acc_.busy_s += t.busy_s;
		acc_.images += t.images;
	}
	started_ = true;
	base_ = last_ = now;
	base_wall_ = last_wall_ = wall_s;
}

std::optional<LoaderSample> LoaderWindow::step(uint64_t samples, int workers,
						const LoaderCounters &now, double wall_s)
{
	if (!started_) {
		restart(now, wall_s);
		return std::nullopt;
	}
	samples_ += samples;
	last_ = now;
	last_wall_ = wall_s;
	if (acc_.wall_s + segment().wall_s < min_s_)
		return std::nullopt;
	return take(workers);
}

std::optional<LoaderSample> LoaderWindow::finish(int workers, double min_s)
{
	if (!started_ || acc_.wall_s + segment().wall_s < min_s)
		return std::nullopt;
	return take(workers);
}

// The window so far as a sample; the next window starts at its end.
std::optional<LoaderSample> LoaderWindow::take(int workers)
{
	Totals seg = segment();
	double wall = acc_.wall_s + seg.wall_s;
	double wait = acc_.wait_s + seg.wait_s, busy = acc_.busy_s + seg.busy_s;
	uint64_t images = acc_.images + seg.images;
	LoaderSample s;
	s.workers = workers;
	s.samples_s = samples_ / wall;
	s.wait_fraction = std::min(0.99, std::max(0.0, wait / wall));
	acc_ = Totals();
	base_ = last_;
	base_wall_ = last_wall_;
	samples_ = 0;
	if (busy <= 0 || images == 0 || !(s.samples_s > 0))
		return std::nullopt; // nothing made or consumed: no model to fit
	s.worker_rate = images / busy;
	return s;
}

bool write_loader_report(const std::string &path, const LoaderSample &s)
{
	std::string tmp = path + ".tmp";
	{
		std::ofstream f(tmp, std::ios::trunc);
		f << format_loader_report(s) << "\n";
		if (!f.flush())
			return false;
	}
	return std::rename(tmp.c_str(), path.c_str()) == 0;
}

} // namespace train
} // namespace omru
