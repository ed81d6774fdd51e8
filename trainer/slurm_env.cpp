// slurm_env.cpp - see slurm_env.hpp.
#include "slurm_env.hpp"

#include <netdb.h>
#include <sys/socket.h>
#include <arpa/inet.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <stdexcept>

namespace omru {
namespace train {

static long env_long(const GetEnv &getenv_fn, const char *name, long fallback,
		     long min, long max)
{
	const char *v = getenv_fn(name);
	if (!v || !*v)
		return fallback;
	char *end = nullptr;
	long x = std::strtol(v, &end, 10);
	if (*end || x < min || x > max)
		throw std::runtime_error(std::string(name) + "='" + v +
					 "' is not an integer in " +
					 std::to_string(min) + ".." +
					 std::to_string(max));
	return x;
}

std::vector<std::string> expand_hostlist(const std::string &list)
{
	std::vector<std::string> out;
	size_t i = 0;
	auto bad = [&list] {
		throw std::runtime_error("malformed Slurm host list '" + list + "'");
	};
	while (i < list.size()) {
		size_t name_end = list.find_first_of(",[", i);
		std::string prefix = list.substr(i, name_end == std::string::npos ? std::string::npos : name_end - i);
		if (name_end == std::string::npos || list[name_end] == ',') {
			if (prefix.empty())
				bad();
			out.push_back(prefix);
			i = name_end == std::string::npos ? list.size() : name_end + 1;
			continue;
		}
		size_t close = list.find(']', name_end);
		if (close == std::string::npos)
			bad();
		std::string ranges = list.substr(name_end + 1, close - name_end - 1);
		size_t r = 0;
		while (r <= ranges.size()) {
			size_t comma = ranges.find(',', r);
			std::string item = ranges.substr(r, comma == std::string::npos ? std::string::npos : comma - r);
			size_t dash = item.find('-');
			std::string lo = item.substr(0, dash);
			std::string hi = dash == std::string::npos ? lo : item.substr(dash + 1);
			if (lo.empty() || hi.empty() ||
			    lo.find_first_not_of("0123456789") != std::string::npos ||
			    hi.find_first_not_of("0123456789") != std::string::npos ||
			    lo.size() > 9 || hi.size() > 9)
				bad();
			long a = std::stol(lo), b = std::stol(hi);
			if (b < a || b - a > 100000)
				bad();
			for (long k = a; k <= b; k++) {
				std::string num = std::to_string(k);
				if (num.size() < lo.size()) // zero padding: n[01-10]
					num = std::string(lo.size() - num.size(), '0') + num;
				out.push_back(prefix + num);
			}
			if (comma == std::string::npos)
				break;
			r = comma + 1;
		}
		i = close + 1;
		if (i < list.size()) {
			if (list[i] != ',')
				bad();
			i++;
		}
	}
	return out;
}

static std::string getaddrinfo_address(const std::string &host)
{
	addrinfo hints{}, *res = nullptr;
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	if (getaddrinfo(host.c_str(), nullptr, &hints, &res) != 0 || !res)
		return "";
	char buf[INET6_ADDRSTRLEN] = "";
	if (res->ai_family == AF_INET)
		inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in *>(res->ai_addr)->sin_addr,
			  buf, sizeof(buf));
	else if (res->ai_family == AF_INET6)
		inet_ntop(AF_INET6, &reinterpret_cast<sockaddr_in6 *>(res->ai_addr)->sin6_addr,
			  buf, sizeof(buf));
	freeaddrinfo(res);
	return buf;
}

// NodeAddr=... from `scontrol show node -o HOST`.
static std::string scontrol_node_addr(const std::string &host)
{
	if (host.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") != std::string::npos)
		return "";
	std::string cmd = "scontrol show node -o '" + host + "' 2>/dev/null";
	std::unique_ptr<FILE, int (*)(FILE *)> p(popen(cmd.c_str(), "r"), pclose);
	if (!p)
		return "";
	std::string out;
	char buf[4096];
	size_t n;
	while ((n = fread(buf, 1, sizeof(buf), p.get())) > 0)
		out.append(buf, n);
	size_t at = out.find("NodeAddr=");
	if (at == std::string::npos)
		return "";
	at += 9;
	return out.substr(at, out.find_first_of(" \n", at) - at);
}

std::string resolve_node_address(const std::string &host)
{
	std::string addr = getaddrinfo_address(host);
	if (addr.empty())
		addr = getaddrinfo_address(scontrol_node_addr(host));
	if (addr.empty())
		throw std::runtime_error("cannot resolve node '" + host +
					 "' (neither DNS nor scontrol's NodeAddr); set MASTER_ADDR");
	return addr;
}

RankEnv rank_env(const GetEnv &getenv_fn)
{
	RankEnv e;
	e.under_slurm = getenv_fn("SLURM_PROCID") != nullptr;
	e.world = static_cast<int>(env_long(getenv_fn, "SLURM_NTASKS", 1, 1, 1 << 20));
	if (getenv_fn("SLURM_STEP_NUM_TASKS"))
		e.world = static_cast<int>(env_long(getenv_fn, "SLURM_STEP_NUM_TASKS", 1, 1, 1 << 20));
	e.rank = static_cast<int>(env_long(getenv_fn, "SLURM_PROCID", 0, 0, e.world - 1));
	e.local_rank = static_cast<int>(env_long(getenv_fn, "SLURM_LOCALID", 0, 0, 1 << 20));
	const char *node = getenv_fn("SLURMD_NODENAME");
	e.node = node ? node : "localhost";

	if (const char *m = getenv_fn("MASTER_ADDR"); m && *m) {
		e.master_host = m;
	} else if (const char *nl = getenv_fn("SLURM_STEP_NODELIST"); nl && *nl) {
		e.master_host = expand_hostlist(nl).at(0);
	} else if (const char *jl = getenv_fn("SLURM_JOB_NODELIST"); jl && *jl) {
		e.master_host = expand_hostlist(jl).at(0);
	} else {
		e.master_host = "127.0.0.1";
	}
	// The rendezvous port: MASTER_PORT, else the first of the ports Slurm
	// reserved for this step on its nodes (slurm.conf MpiParams=ports=:
	// no other step of the node has them), else one spread by the job and
	// step ids below Linux's ephemeral range (32768-), where any process's
	// listening sockets (Gloo's, for one) may hold the port already.
	auto id = [&getenv_fn](const char *name) {
		const char *v = getenv_fn(name);
		return v ? std::strtoul(v, nullptr, 10) % 1000003ul : 0ul;
	};
	unsigned long job = id("SLURM_JOB_ID"), step = id("SLURM_STEP_ID");
	long port = static_cast<long>(29500 + (job * 7 + step) % 3000);
	if (const char *r = getenv_fn("SLURM_STEP_RESV_PORTS"); r && *r) {
		char *end = nullptr;
		long first = std::strtol(r, &end, 10);
		if (end != r && (*end == '\0' || *end == '-' || *end == ',') && first >= 1 &&
		    first <= 65535)
			port = first;
	}
	e.master_port = static_cast<int>(env_long(getenv_fn, "MASTER_PORT", port, 1, 65535));
	return e;
}

} // namespace train
} // namespace omru
