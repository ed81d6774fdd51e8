// metrics.cpp - see metrics.hpp.
#include "metrics.hpp"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <stdexcept>

namespace omru {
namespace train {

static std::string num(double v)
{
	if (!std::isfinite(v))
		return "null";
	char buf[64];
	std::snprintf(buf, sizeof(buf), "%.6g", v);
	return buf;
}

std::string metrics_json(const EpochMetrics &m)
{
	std::string s = "{\"epoch\": " + std::to_string(m.epoch) +
			", \"loss\": " + num(m.loss) +
			", \"accuracy\": " + num(m.accuracy) +
			", \"samples_per_s\": " + num(m.samples_per_s) +
			", \"data_wait_fraction\": " + num(m.data_wait_fraction) +
			", \"loader_workers\": " + std::to_string(m.loader_workers) +
			", \"world_size\": " + std::to_string(m.world_size) +
			", \"lr\": " + num(m.lr) + ", \"epoch_s\": " + num(m.epoch_s) +
			", \"loss_drop_first_100_steps\": " +
			(m.loss_drop_first_100_steps ? num(*m.loss_drop_first_100_steps) : "null");
	if (m.profiled_epoch_s)
		s += ", \"profiled_epoch_s\": " + num(*m.profiled_epoch_s);
	if (m.profile_s)
		s += ", \"profile_s\": " + num(*m.profile_s);
	return s + "}";
}

void append_line(const std::string &path, const std::string &line)
{
	FILE *f = std::fopen(path.c_str(), "a");
	if (!f)
		throw std::runtime_error(path + ": cannot append: " + std::strerror(errno));
	bool ok = std::fprintf(f, "%s\n", line.c_str()) >= 0;
	ok = std::fclose(f) == 0 && ok;
	if (!ok)
		throw std::runtime_error(path + ": write failed");
}

bool replace_line(const std::string &path, const std::string &line)
{
	std::string tmp = path + ".tmp";
	FILE *f = std::fopen(tmp.c_str(), "w");
	if (!f)
		return false;
	bool ok = std::fprintf(f, "%s\n", line.c_str()) >= 0;
	ok = std::fclose(f) == 0 && ok;
	return ok && std::rename(tmp.c_str(), path.c_str()) == 0;
}

} // namespace train
} // namespace omru
