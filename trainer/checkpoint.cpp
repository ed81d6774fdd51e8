// checkpoint.cpp - see checkpoint.hpp.  One torch archive (the zip format
// torch::save writes) holding:
//   format_version          int, kFormatVersion
//   model, epochs_done, samples_into_epoch (optional: 0), world_size,
//   global_batch, seed (bit-cast to int64),
//   lr_from, lr_target, lr_warmup_start, lr_global_batch   the Progress
//   params/<name>           every named parameter and buffer of the network
//                           (buffers flagged as such), e.g. params/
//                           layer1.0.bn1.running_mean
//   optimizer               the optimizer's own archive (Optimizer::save)
// It is written to path.tmp.<pid>, fsync'd and renamed over `path`, so a
// reader sees the old checkpoint or the new one, never half of one.
//
// Loading copies into the network's existing tensors (copy_) rather than
// replacing them: the optimizer keys its state by the parameters' tensor
// implementations, and the caller may hold references to them.  Tensors are
// read onto the device the network is on, so a checkpoint written on a GPU
// loads on another machine's GPU or on a CPU alike.  libtorch 1.13's
// Optimizer::load restores the per-parameter state (momentum buffers), not
// the parameter groups' options: the caller sets the learning rate (from
// the restored LrSchedule) after loading.
#include "checkpoint.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <stdexcept>
#include <sys/stat.h>
#include <unistd.h>
#include <utility>
#include <vector>

namespace omru {
namespace train {
namespace {

constexpr int64_t kFormatVersion = 1;

std::string sys_error(const std::string &what, const std::string &path)
{
	return what + " " + path + ": " + std::strerror(errno);
}

// The first line of a c10::Error's message (the rest is a C++ backtrace).
std::string first_line(const char *what)
{
	std::string s(what);
	size_t nl = s.find('\n');
	return nl == std::string::npos ? s : s.substr(0, nl);
}

// The named parameters then the named buffers, each with its buffer flag.
std::vector<std::pair<std::string, std::pair<torch::Tensor, bool>>>
named_state(Net &net)
{
	std::vector<std::pair<std::string, std::pair<torch::Tensor, bool>>> v;
	for (const auto &kv : net.named_parameters())
		v.push_back({ kv.key(), { kv.value(), false } });
	for (const auto &kv : net.named_buffers())
		v.push_back({ kv.key(), { kv.value(), true } });
	return v;
}

// Writes the archive to `tmp` and fsyncs it; false with errno on failure.
bool write_synced(torch::serialize::OutputArchive &ar, const std::string &tmp)
{
	int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
			0644);
	if (fd < 0)
		return false;
	int err = 0;
	ar.save_to([&](const void *buf, size_t n) -> size_t {
		const char *p = static_cast<const char *>(buf);
		size_t done = 0;
		while (!err && done < n) {
			ssize_t w = ::write(fd, p + done, n - done);
			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0)
				err = w < 0 ? errno : EIO;
			else
				done += static_cast<size_t>(w);
		}
		return done;
	});
	if (!err && ::fsync(fd) != 0)
		err = errno;
	if (::close(fd) != 0 && !err)
		err = errno;
	errno = err;
	return err == 0;
}

void fsync_dir_of(const std::string &path)
{
	size_t slash = path.rfind('/');
	std::string dir = slash == std::string::npos ? "." :
			  slash == 0			 ? "/" :
							   path.substr(0, slash);
	int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		::fsync(fd); // best effort: the rename itself is atomic
		::close(fd);
	}
}

int64_t read_int(torch::serialize::InputArchive &ar, const char *key)
{
	c10::IValue v;
	ar.read(key, v);
	return v.toInt();
}

double read_double(torch::serialize::InputArchive &ar, const char *key)
{
	c10::IValue v;
	ar.read(key, v);
	return v.toDouble();
}

} // namespace

void save_checkpoint(const std::string &path, Net &net,
		     torch::optim::Optimizer &opt, const Progress &p)
{
	torch::serialize::OutputArchive ar;
	ar.write("format_version", c10::IValue(kFormatVersion));
	ar.write("model", c10::IValue(p.model));
	ar.write("epochs_done", c10::IValue(int64_t{ p.epochs_done }));
	ar.write("samples_into_epoch", c10::IValue(static_cast<int64_t>(p.samples_into_epoch)));
	ar.write("world_size", c10::IValue(int64_t{ p.world_size }));
	ar.write("global_batch", c10::IValue(int64_t{ p.global_batch }));
	ar.write("seed", c10::IValue(static_cast<int64_t>(p.seed)));
	ar.write("lr_from", c10::IValue(p.lr.from_lr));
	ar.write("lr_target", c10::IValue(p.lr.target_lr));
	ar.write("lr_warmup_start", c10::IValue(p.lr.warmup_start_epoch));
	ar.write("lr_global_batch", c10::IValue(int64_t{ p.lr.global_batch }));

	torch::serialize::OutputArchive params(ar.compilation_unit());
	for (const auto &e : named_state(net))
		params.write(e.first, e.second.first.detach(), e.second.second);
	ar.write("params", params);

	torch::serialize::OutputArchive optimizer(ar.compilation_unit());
	opt.save(optimizer);
	ar.write("optimizer", optimizer);

	const std::string tmp = path + ".tmp." + std::to_string(::getpid());
	bool ok;
	try {
		ok = write_synced(ar, tmp);
	} catch (const c10::Error &e) {
		::unlink(tmp.c_str());
		throw std::runtime_error("cannot write checkpoint " + tmp + ": " +
					 first_line(e.what()));
	}
	if (!ok) {
		std::string msg = sys_error("cannot write checkpoint", tmp);
		::unlink(tmp.c_str());
		throw std::runtime_error(msg);
	}
	if (std::rename(tmp.c_str(), path.c_str()) != 0) {
		std::string msg = sys_error("cannot rename " + tmp + " to", path);
		::unlink(tmp.c_str());
		throw std::runtime_error(msg);
	}
	fsync_dir_of(path);
}

bool load_checkpoint(const std::string &path, Net &net,
		     torch::optim::Optimizer &opt, Progress &p,
		     const std::string &expected_model)
{
	struct stat st;
	if (::stat(path.c_str(), &st) != 0) {
		if (errno == ENOENT)
			return false;
		throw std::runtime_error(sys_error("cannot read checkpoint", path));
	}
	if (::access(path.c_str(), R_OK) != 0)
		throw std::runtime_error(sys_error("cannot read checkpoint", path));

	auto state = named_state(net);
	torch::Device device = torch::kCPU;
	if (!state.empty())
		device = state.front().second.first.device();

	Progress q;
	try {
		torch::serialize::InputArchive ar;
		ar.load_from(path, device);
		int64_t version = read_int(ar, "format_version");
		if (version != kFormatVersion)
			throw std::runtime_error(
				"checkpoint " + path + " has format version " +
				std::to_string(version) + ", not " +
				std::to_string(kFormatVersion));
		c10::IValue model;
		ar.read("model", model);
		q.model = model.toStringRef();
		if (q.model != expected_model)
			throw std::runtime_error("checkpoint " + path +
						 " is for model '" + q.model +
						 "', not '" + expected_model +
						 "'");
		q.epochs_done = static_cast<int>(read_int(ar, "epochs_done"));
		q.world_size = static_cast<int>(read_int(ar, "world_size"));
		// Absent from checkpoints written before elastic jobs: 0.
		c10::IValue into;
		if (ar.try_read("samples_into_epoch", into)) {
			if (!into.isInt() || into.toInt() < 0)
				throw std::runtime_error("checkpoint " + path +
							 ": samples_into_epoch is not a count");
			q.samples_into_epoch = static_cast<uint64_t>(into.toInt());
		}
		q.global_batch = static_cast<int>(read_int(ar, "global_batch"));
		q.seed = static_cast<uint64_t>(read_int(ar, "seed"));
		q.lr.from_lr = read_double(ar, "lr_from");
		q.lr.target_lr = read_double(ar, "lr_target");
		q.lr.warmup_start_epoch = read_double(ar, "lr_warmup_start");
		q.lr.global_batch =
			static_cast<int>(read_int(ar, "lr_global_batch"));

		// Read and check every tensor before changing anything.
		torch::serialize::InputArchive params;
		ar.read("params", params);
		if (params.keys().size() != state.size())
			throw std::runtime_error(
				"checkpoint " + path + " holds " +
				std::to_string(params.keys().size()) +
				" tensors, the network has " +
				std::to_string(state.size()));
		std::vector<torch::Tensor> saved(state.size());
		for (size_t i = 0; i < state.size(); i++) {
			const auto &e = state[i];
			if (!params.try_read(e.first, saved[i], e.second.second))
				throw std::runtime_error("checkpoint " + path +
							 " has no tensor " +
							 e.first);
			if (saved[i].sizes() != e.second.first.sizes())
				throw std::runtime_error(
					"checkpoint " + path + ": " + e.first +
					" has shape " +
					c10::str(saved[i].sizes()) +
					", the network's is " +
					c10::str(e.second.first.sizes()));
		}

		torch::serialize::InputArchive optimizer;
		ar.read("optimizer", optimizer);
		opt.load(optimizer);

		torch::NoGradGuard no_grad;
		for (size_t i = 0; i < state.size(); i++)
			state[i].second.first.copy_(saved[i]);
	} catch (const c10::Error &e) {
		throw std::runtime_error("checkpoint " + path +
					 " is unreadable or corrupt: " +
					 first_line(e.what()));
	}
	p = q;
	return true;
}

} // namespace train
} // namespace omru
