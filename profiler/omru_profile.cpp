// omru_profile.cpp - omru-profile: the admin's view of what select/omru
// knows about each model's speed (the profile store in StateDir and the
// site's ProfileFile= files), and the changes an admin makes to it: import
// a profile CSV as site rows, forget a model or a user's rows.  Changes go
// through merge_save (store_file.hpp), as slurmctld's own do, so neither
// overwrites the other; slurmctld reads them within seconds.  Exit status:
// 0 done, 1 the store or a file could not be read or written (or show
// found no rows), 2 bad usage.
#include <chrono>
#include <cstdio>
#include <ctime>
#include <iostream>
#include <map>
#include <thread>
#include <unistd.h>

#include "cli_args.hpp"
#include "controller/site_profiles.hpp"
#include "model/cluster.hpp"
#include "model/csv_table.hpp" // InputError
#include "node/gpu_usage.hpp"
#include "profiler/profile_view.hpp"
#include "profile/interference_model.hpp"
#include "profile/store_file.hpp"
#include "profiler/store_location.hpp"
#include "profiler/store_users.hpp"

using namespace omru;
using namespace omru::profiler;

static const char kUsage[] =
	"usage: omru-profile list [--user USER | --site] [--json] [--store PATH]\n"
	"       omru-profile show MODEL [--user USER | --site] [--cluster NxG] [--json]\n"
	"                    [--store PATH]\n"
	"       omru-profile import FILE [--user USER] [--store PATH]\n"
	"       omru-profile forget MODEL [--user USER | --site | --everyone] [--store PATH]\n"
	"       omru-profile forget --user USER [--store PATH]\n"
	"       omru-profile interference --pairs FILE [--signals FILE] [--models A,B,...]\n"
	"       omru-profile gpu-use [--gpus LIST] [--samples N]\n"
	"       omru-profile --help | --version\n";

static void print_help()
{
	std::cout << kUsage << "\n"
		"What select/omru knows about each model's epoch time per GPU count: the\n"
		"rows jobs measured (per user: one user's numbers never steer another\n"
		"user's jobs), the rows imported for every user ((site)), and the site's\n"
		"ProfileFile= files ((file)).\n\n"
		"  list              the models, per owner: rows, GPU counts, sources, newest\n"
		"  show MODEL        its rows and the curve the planner fits from them for\n"
		"                    USER's jobs (without --user: for users without rows of\n"
		"                    their own), with each count measured, interpolated or\n"
		"                    extrapolated\n"
		"  import FILE       the rows of a profile CSV (model,gpus,epoch_s[,nodes])\n"
		"                    as site rows, or as USER's rows with --user\n"
		"  forget MODEL      USER's rows and correction of MODEL (--user), the\n"
		"                    site's (--site), or everyone's (--everyone)\n"
		"  forget --user U   every row of user U\n"
		"  interference      what co-located jobs cost each other as select/omru\n"
		"                    prices it from ColocationFile= (--pairs) and\n"
		"                    ColocationSignals= (--signals): every pair of the\n"
		"                    models (--models, default every model the files name)\n"
		"                    as a pairs CSV with where each side comes from\n"
		"                    (measured, predicted, none) on stdout; the fit's\n"
		"                    coefficients on stderr\n"
		"  gpu-use           this node's GPUs (--gpus, minor numbers as\n"
		"                    SLURM_JOB_GPUS lists them; default all) sampled\n"
		"                    through NVML once a second, N times (--samples,\n"
		"                    default 5): each device's mean GPU and memory-\n"
		"                    controller utilisation, as spank_omru samples a\n"
		"                    job's (a model's solo signals when it runs alone)\n\n"
		"  --user USER       a login name or a uid\n"
		"  --site            only the rows shared by all\n"
		"  --cluster NxG     the curve on N nodes of G GPUs (default: nodes of 8,\n"
		"                    enough for the largest row)\n"
		"  --json            one JSON document instead of the table\n"
		"  --store PATH      the store file (default: StateDir=/profile_store of\n"
		"                    omru.conf next to slurm.conf, else\n"
		"                    StateSaveLocation/omru/profile_store; $SLURM_CONF\n"
		"                    names slurm.conf, default /etc/slurm/slurm.conf)\n\n"
		"Run it as root or SlurmUser: the store is theirs (mode 0600).\n"
		"Exit status: 0 done, 1 a file could not be read or written (or show found\n"
		"no rows), 2 bad usage.  See omru-profile(1).\n";
}

static const std::vector<OptionSpec> kOptions = {
	{ "user", true }, { "site", false },   { "everyone", false }, { "cluster", true },
	{ "json", false }, { "store", true },
	{ "pairs", true }, { "signals", true }, { "models", true },
	{ "gpus", true }, { "samples", true },
};

// Whose rows: --user, --site, --everyone; `fallback` when none is given.
static Who who_of(const CliArgs &args, Who::Kind fallback, bool everyone_ok)
{
	int given = args.has("user") + args.has("site") + args.has("everyone");
	if (given > 1)
		throw UsageError("--user, --site and --everyone: give one");
	if (args.has("everyone") && !everyone_ok)
		throw UsageError("--everyone is for forget MODEL");
	Who w;
	w.kind = fallback;
	if (args.has("site"))
		w.kind = Who::Kind::Site;
	if (args.has("everyone"))
		w.kind = Who::Kind::Everyone;
	if (auto u = args.get("user")) {
		auto uid = parse_user(*u);
		if (!uid.ok())
			throw UsageError(uid.error());
		w.kind = Who::Kind::User;
		w.uid = uid.value();
	}
	return w;
}

static int fail(const std::string &msg)
{
	std::cerr << "omru-profile: " << msg << "\n";
	return 1;
}

static std::string hint(const std::string &error)
{
	return geteuid() == 0 ? error : error + " (run as root or SlurmUser)";
}

// Applies ops to the store file; prints what changed.
static int change(const StoreLocation &loc, const std::vector<StoreOp> &ops,
		  const std::string &done)
{
	std::vector<std::string> warnings;
	ProfileStore saved;
	std::string e = merge_save(loc.path, ops, {}, &saved, &warnings);
	for (const std::string &w : warnings)
		std::cerr << "omru-profile: " << w << "\n";
	if (!e.empty())
		return fail(hint(e));
	std::cout << done << " (" << loc.path << "; slurmctld plans with it within "
		  << "seconds)\n";
	return 0;
}

static size_t rows_of(const ProfileStore &s, uint32_t uid)
{
	size_t n = 0;
	for (const std::string &m : s.models(uid))
		n += s.rows(uid, m).size();
	return n;
}

static int forget(const CliArgs &args, const std::string &model,
		  const StoreLocation &loc, const ProfileStore &now)
{
	std::vector<StoreOp> ops;
	std::string what;
	size_t rows = 0;
	if (model.empty()) {
		if (!args.has("user") || args.has("site") || args.has("everyone"))
			throw UsageError("forget: give a MODEL, or --user USER for all of "
					 "that user's rows");
		Who w = who_of(args, Who::Kind::User, false);
		rows = rows_of(now, w.uid);
		ops.push_back(StoreOp::forget_user(w.uid));
		what = "every row of " + user_label(w.uid);
	} else {
		Who w = who_of(args, Who::Kind::Everyone, true);
		if (!args.has("user") && !args.has("site") && !args.has("everyone"))
			throw UsageError("forget MODEL: say whose rows: --user USER, "
					 "--site or --everyone");
		if (w.kind == Who::Kind::Everyone) {
			for (uint32_t u : now.users())
				rows += now.rows(u, model).size();
			ops.push_back(StoreOp::forget_model(model));
			what = "every row of model " + model;
		} else {
			uint32_t uid = w.kind == Who::Kind::Site ? kSiteUid : w.uid;
			rows = now.rows(uid, model).size();
			ops.push_back(StoreOp::forget(uid, model));
			what = user_label(uid) + "'s rows of model " + model;
		}
	}
	return change(loc, ops, "forgot " + what + ": " + std::to_string(rows) + " row(s)");
}

static int import(const CliArgs &args, const std::string &file, const StoreLocation &loc)
{
	if (args.has("site") || args.has("everyone") || args.has("cluster") ||
	    args.has("json"))
		throw UsageError("import takes --user and --store only");
	Who w = who_of(args, Who::Kind::Site, false);
	uint32_t uid = w.kind == Who::Kind::User ? w.uid : kSiteUid;
	auto p = controller::load_site_profiles({ file });
	if (!p.ok())
		return fail(p.error());
	const int64_t now = static_cast<int64_t>(std::time(nullptr));
	std::vector<StoreOp> ops;
	for (const controller::SiteRow &r : p.value().row_list) {
		StoreRow row;
		row.model = r.model;
		row.gpus = r.gpus;
		row.nodes = r.nodes;
		row.epoch_s = r.epoch_s;
		row.source = RowSource::Site;
		row.when = now;
		if (std::string e = row_error(row); !e.empty())
			return fail(file + ": model " + r.model + ", " + std::to_string(r.gpus) +
				    " GPUs: " + e + "; nothing imported");
		ops.push_back(StoreOp::add_row(uid, row));
	}
	return change(loc, ops,
		      "imported " + std::to_string(ops.size()) + " row(s) of " +
			      std::to_string(p.value().table->model_count()) + " model(s) as " +
			      (uid == kSiteUid ? std::string("site rows") : user_label(uid) + "'s rows"));
}

// Holding out each pair refits the model once per pair: beyond this many
// rows the check would take minutes, and is left out.
constexpr size_t kMaxHeldOutRows = 2000;

static const char *source_name(InterferenceModel::Source s)
{
	switch (s) {
	case InterferenceModel::Source::Measured:
		return "measured";
	case InterferenceModel::Source::Predicted:
		return "predicted";
	default:
		return "none";
	}
}

// omru-profile interference: the table as the planner reads it, every pair
// priced, in the pairs format (a site's emulator or omru-sim can read it).
static int interference(const CliArgs &args)
{
	// Every usage mistake before any file is read.
	std::vector<std::string> models = args.list("models", "model name");
	for (const std::string &name : models)
		if (!valid_model_name(name))
			throw UsageError("--models: '" + name + "' is not a model name");
	const std::string pairs = args.required("pairs");
	ColocationData data;
	try {
		data = read_colocation(pairs, args.get("signals").value_or(""));
	} catch (const InputError &e) {
		return fail(e.what());
	}
	InterferenceModel m(data);
	const InterferenceFit &f = m.fit();
	if (f.fitted)
		std::fprintf(stderr,
			     "omru-profile: fit on %d measured directions, rmse %.4f: "
			     "slowdown(a, b) = 1 + %.4f + %.4f u_b + %.4f m_b + %.4f u_a u_b"
			     " + %.4f m_a m_b\n",
			     f.observations, f.rmse, f.coef[0], f.coef[1], f.coef[2],
			     f.coef[3], f.coef[4]);
	else
		std::fprintf(stderr, "omru-profile: no fit (%d measured directions with "
				     "signals; 10 needed): unmeasured pairs are not priced\n",
			     f.observations);
	if (data.pairs.size() <= kMaxHeldOutRows) {
		HeldOutError h = held_out_error(data);
		if (h.directions)
			std::fprintf(stderr,
				     "omru-profile: each measured pair held out and predicted by "
				     "the fit on the rest: rmse %.4f over %d directions (the "
				     "rest's mean: %.4f; no slowdown: %.4f)\n",
				     h.rmse_fit, h.directions, h.rmse_mean, h.rmse_none);
	}
	if (models.empty())
		models = m.models();
	std::printf("model_a,model_b,slowdown_a,slowdown_b,source_a,source_b\n");
	for (size_t i = 0; i < models.size(); i++)
		for (size_t j = i; j < models.size(); j++) {
			const std::string &a = models[i], &b = models[j];
			std::printf("%s,%s,%.4f,%.4f,%s,%s\n", a.c_str(), b.c_str(),
				    m.slowdown(a, b), m.slowdown(b, a),
				    source_name(m.source(a, b)), source_name(m.source(b, a)));
		}
	return 0;
}

// omru-profile gpu-use: what spank_omru's sampler sees on this node, so an
// admin can tell it works (and measure a model's solo signals by hand).
static int gpu_use(const CliArgs &args)
{
	std::vector<int> minors;
	if (auto g = args.get("gpus"); g && !parse_gpu_minors(*g, minors))
		throw UsageError("--gpus " + *g + ": give minor numbers, as 0,2 or 0-3");
	const int samples = static_cast<int>(args.number("samples", 5, 1, 3600));
	std::map<int, std::pair<double, double>> sum;
	std::string error;
	for (int i = 0; i < samples; i++) {
		if (i)
			std::this_thread::sleep_for(std::chrono::seconds(1));
		std::vector<GpuUtilization> now;
		if (!sample_gpu_utilization(minors, now, error))
			return fail(error);
		for (const GpuUtilization &u : now) {
			sum[u.minor].first += u.gpu_pct;
			sum[u.minor].second += u.mem_pct;
		}
	}
	std::printf("gpu,gpu_util,mem_util,samples\n");
	for (const auto &[minor, s] : sum)
		std::printf("%d,%.1f,%.1f,%d\n", minor, s.first / samples, s.second / samples,
			    samples);
	return 0;
}

static int profile_main(std::vector<std::string> argv)
{
	if (argv.empty())
		throw UsageError("give a command: list, show, import or forget");
	const std::string cmd = argv[0];
	argv.erase(argv.begin());
	std::string operand;
	if (!argv.empty() && argv[0].rfind("--", 0) != 0) {
		operand = argv[0];
		argv.erase(argv.begin());
	}
	CliArgs args(argv, kOptions);
	if (cmd == "interference") {
		if (!operand.empty())
			throw UsageError("interference takes no operand ('" + operand + "')");
		for (const char *o : { "user", "site", "everyone", "cluster", "json", "store" })
			if (args.has(o))
				throw UsageError(std::string("--") + o + " is not for interference");
		return interference(args);
	}
	if (cmd == "gpu-use") {
		if (!operand.empty())
			throw UsageError("gpu-use takes no operand ('" + operand + "')");
		for (const char *o : { "user", "site", "everyone", "cluster", "json", "store",
				       "pairs", "signals", "models" })
			if (args.has(o))
				throw UsageError(std::string("--") + o + " is not for gpu-use");
		return gpu_use(args);
	}
	if (args.has("gpus") || args.has("samples"))
		throw UsageError("--gpus and --samples are for gpu-use");
	if (args.has("pairs") || args.has("signals") || args.has("models"))
		throw UsageError("--pairs, --signals and --models are for interference");
	if (cmd != "list" && cmd != "show" && cmd != "import" && cmd != "forget")
		throw UsageError("unknown command '" + cmd + "'");
	if ((cmd == "show" || cmd == "import") && operand.empty())
		throw UsageError(cmd + ": give the " + (cmd == "show" ? "MODEL" : "FILE"));
	if (cmd == "list" && !operand.empty())
		throw UsageError("list takes no operand ('" + operand + "')");
	if (cmd != "show" && args.has("cluster"))
		throw UsageError("--cluster is for show");
	// Every usage mistake before any file is read.
	(void) who_of(args, Who::Kind::Everyone, cmd == "forget");
	std::optional<Cluster> cluster;
	if (auto c = args.get("cluster")) {
		auto parsed = parse_cluster(*c);
		if (!parsed.ok() || !parsed.value().uniform())
			throw UsageError("--cluster " + *c + ": give NxG, N nodes of G GPUs");
		cluster = parsed.value();
	}

	const char *conf = getenv("SLURM_CONF");
	auto loc = locate_store(args.get("store"), conf && *conf ? conf : "/etc/slurm/slurm.conf");
	if (!loc.ok())
		return fail(loc.error());
	if (cmd == "import")
		return import(args, operand, loc.value());

	auto store = load_store(loc.value().path);
	if (!store.ok())
		return fail(hint(store.error()));
	if (cmd == "forget")
		return forget(args, operand, loc.value(), store.value());

	auto site = controller::load_site_profiles(loc.value().profile_files);
	if (!site.ok())
		return fail(site.error());
	const bool json = args.has("json");
	if (cmd == "list") {
		Who w = who_of(args, Who::Kind::Everyone, false);
		write_list(std::cout, list_models(store.value(), site.value(), w), json);
		return 0;
	}
	Who w = who_of(args, Who::Kind::Site, false);
	uint32_t uid = w.kind == Who::Kind::User ? w.uid : kSiteUid;
	auto v = view_model(store.value(), site.value(), uid, operand, cluster);
	if (!v)
		return fail("no rows of model " + operand +
			    (uid == kSiteUid ? std::string(" for the site")
					     : " for " + user_label(uid) + " or the site") +
			    ": its jobs will profile themselves (--omru-profile=auto)");
	write_view(std::cout, *v, json);
	return 0;
}

int main(int argc, char **argv)
{
	std::vector<std::string> args(argv + 1, argv + argc);
	try {
		if (args.size() == 1 && (args[0] == "--help" || args[0] == "-h")) {
			print_help();
			return 0;
		}
		if (args.size() == 1 && args[0] == "--version") {
			std::cout << "omru-profile " OMRU_VERSION "\n";
			return 0;
		}
		return profile_main(args);
	} catch (const UsageError &e) {
		std::cerr << "omru-profile: " << e.what() << "\n" << kUsage;
		return 2;
	} catch (const std::exception &e) {
		std::cerr << "omru-profile: internal error: " << e.what() << "\n";
		return 1;
	}
}
