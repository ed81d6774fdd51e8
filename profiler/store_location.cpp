// store_location.cpp - see store_location.hpp.
#include "profiler/store_location.hpp"

#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "controller/omru_conf.hpp"

namespace omru {
namespace profiler {
namespace {

bool same_key(std::string_view a, std::string_view b)
{
	if (a.size() != b.size())
		return false;
	for (size_t i = 0; i < a.size(); i++)
		if (std::tolower(static_cast<unsigned char>(a[i])) !=
		    std::tolower(static_cast<unsigned char>(b[i])))
			return false;
	return true;
}

std::string dir_of(const std::string &path)
{
	size_t slash = path.rfind('/');
	return slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
}

} // namespace

std::string state_save_location(std::string_view text)
{
	std::string found;
	size_t pos = 0;
	while (pos <= text.size()) {
		size_t end = text.find('\n', pos);
		if (end == std::string_view::npos)
			end = text.size();
		std::string_view line = text.substr(pos, end - pos);
		pos = end + 1;
		size_t hash = line.find('#');
		if (hash != std::string_view::npos)
			line = line.substr(0, hash);
		// Several Key=Value words may share a line.
		size_t i = 0;
		while (i < line.size()) {
			while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i])))
				i++;
			size_t w = i;
			while (i < line.size() && !std::isspace(static_cast<unsigned char>(line[i])))
				i++;
			std::string_view word = line.substr(w, i - w);
			size_t eq = word.find('=');
			if (eq != std::string_view::npos &&
			    same_key(word.substr(0, eq), "StateSaveLocation"))
				found = std::string(word.substr(eq + 1));
		}
	}
	return found;
}

Parsed<StoreLocation> locate_store(const std::optional<std::string> &store,
				   const std::string &slurm_conf)
{
	using R = Parsed<StoreLocation>;
	StoreLocation loc;
	const std::string omru_conf = dir_of(slurm_conf) + "/omru.conf";
	auto conf = controller::load_omru_conf(omru_conf, true);
	if (!conf.ok())
		return R::fail(conf.error());
	loc.profile_files = conf.value().profile_files;
	if (store) {
		loc.path = *store;
		loc.how = "--store";
		return loc;
	}
	if (!conf.value().state_dir.empty()) {
		loc.path = conf.value().state_dir + "/profile_store";
		loc.how = "StateDir= of " + omru_conf;
		return loc;
	}
	std::ifstream f(slurm_conf);
	if (!f)
		return R::fail(slurm_conf + ": cannot read: " + std::strerror(errno) +
			       " (set SLURM_CONF, or give --store PATH)");
	std::stringstream text;
	text << f.rdbuf();
	std::string ssl = state_save_location(text.str());
	loc.how = ssl.empty() ? std::string("Slurm's default StateSaveLocation (none in ") +
					slurm_conf + ")"
			      : "StateSaveLocation of " + slurm_conf;
	if (ssl.empty())
		ssl = kDefaultStateSaveLocation;
	loc.path = ssl + "/omru/profile_store";
	return loc;
}

} // namespace profiler
} // namespace omru
