// test_sim_inputs.cpp - the readers of doc/sim-formats.md accept what the
// spec allows and reject everything else with FILE:LINE:COL and a reason.
#include "check_cxx.hpp"

#include <cstdint>
#include <string>

#include "model/csv_table.hpp"
#include "model/schedule.hpp"

using namespace omru;

static const char kProfiles[] = "model,gpus,epoch_s,nodes\n"
				"m,1,10,1\n"
				"m,2,6,1\n"
				"m,2,8,2\n"
				"n,4,3,\n";

static ProfileTable profiles()
{
	return ProfileTable::from_csv(CsvTable::parse("p.csv", kProfiles));
}

// The message of the InputError that parsing `text` as a workload throws.
static std::string workload_error(const char *text)
{
	try {
		workload_from_csv(CsvTable::parse("w.csv", text), profiles());
	} catch (const InputError &e) {
		return e.what();
	}
	return "(no error)";
}

static std::string profile_error(const char *text)
{
	try {
		ProfileTable::from_csv(CsvTable::parse("p.csv", text));
	} catch (const InputError &e) {
		return e.what();
	}
	return "(no error)";
}

START_TEST(test_cluster_spec_parses_nodes_and_gpus)
{
	auto c = parse_cluster("16x4");
	ck_assert(c.ok());
	ck_assert_int_eq(c.value().nodes, 16);
	ck_assert_int_eq(c.value().gpus_per_node, 4);
	ck_assert_int_eq(c.value().total_gpus(), 64);
	ck_assert_int_eq(c.value().min_nodes(5), 2);
}
END_TEST

START_TEST(test_cluster_spec_rejects_malformed_values)
{
	const char *bad[] = { "", "16", "x4", "16x", "0x4", "4x0", "16X4",
			      "16x4x2", "-1x4", "65537x4", "4x65", "1.5x4" };
	for (const char *b : bad) {
		auto c = parse_cluster(b);
		ck_assert_msg(!c.ok(), "accepted '%s'", b);
		ck_assert_msg(c.error().find("expected NxG") != std::string::npos,
			      "%s", c.error().c_str());
	}
}
END_TEST

START_TEST(test_profile_lookup_prefers_the_exact_spread)
{
	ProfileTable p = profiles();
	int m = p.model_id("m");
	ck_assert_double_eq(*p.epoch_s(m, 2, 1), 6);
	ck_assert_double_eq(*p.epoch_s(m, 2, 2), 8);
	ck_assert(!p.epoch_s(m, 1, 2)); // no row for 1 GPU over 2 nodes
	ck_assert(!p.epoch_s(m, 3, 1)); // no row for 3 GPUs at all
}
END_TEST

START_TEST(test_profile_row_without_nodes_applies_to_any_spread)
{
	ProfileTable p = profiles();
	int n = p.model_id("n");
	ck_assert_double_eq(*p.epoch_s(n, 4, 1), 3);
	ck_assert_double_eq(*p.epoch_s(n, 4, 3), 3);
	ck_assert_int_eq(p.model_id("nope"), -1);
}
END_TEST

START_TEST(test_profile_counts_are_sorted_and_distinct)
{
	ProfileTable p = ProfileTable::from_csv(CsvTable::parse(
		"p.csv", "model,gpus,epoch_s,nodes\nm,4,1,1\nm,2,2,1\nm,2,3,2\n"));
	const std::vector<int> &c = p.counts(0);
	ck_assert_int_eq(c.size(), 2);
	ck_assert_int_eq(c[0], 2);
	ck_assert_int_eq(c[1], 4);
}
END_TEST

// What a pipeline split saves scales rows by model and spread; a row
// without a node count is asked as nodes 0; a bad factor keeps the row.
START_TEST(test_scaled_profiles_keep_the_rows_and_scale_their_times)
{
	ProfileTable p = ProfileTable::from_csv(CsvTable::parse(
		"p.csv", "model,gpus,epoch_s,nodes\nm,2,10,1\nm,2,12,2\nm,4,8\nk,1,5,1\n"));
	int m = p.model_id("m"), k = p.model_id("k");
	ProfileTable s = p.scaled([&](int model, int gpus, int nodes) {
		if (model == k)
			return -1.0; // not a factor: left alone
		return gpus == 2 && nodes == 2 ? 0.5 : nodes == 0 ? 0.25 : 1.0;
	});
	ck_assert_double_eq(*s.epoch_s(m, 2, 1), 10);
	ck_assert_double_eq(*s.epoch_s(m, 2, 2), 6);
	ck_assert_double_eq(*s.epoch_s(m, 4, 3), 2);
	ck_assert_double_eq(*s.epoch_s(k, 1, 1), 5);
	ck_assert(!s.epoch_s(k, 2, 1));
	ck_assert_int_eq(s.counts(m).size(), 2);
	ck_assert_double_eq(*p.epoch_s(m, 2, 2), 12); // the original stays
}
END_TEST

START_TEST(test_profile_errors_name_file_line_and_column)
{
	ck_assert_string_eq(profile_error("model,gpus,epoch_s\nm,1,0\n"),
			 "p.csv:2:5: column 'epoch_s': '0' is not a number > 0");
	ck_assert_string_eq(profile_error("model,gpus,epoch_s\nm,x,1\n"),
			 "p.csv:2:3: column 'gpus': 'x' is not an integer in 1..65536");
	ck_assert_string_eq(profile_error("model,gpus,epoch_s\nm m,1,1\n"),
			 "p.csv:2:1: column 'model': 'm m' is not a model name ([A-Za-z0-9._+-]+)");
	ck_assert_string_eq(profile_error("model,gpus,epoch_s,nodes\nm,1,1,2\n"),
			 "p.csv:2:7: column 'nodes': 1 GPUs cannot span 2 nodes");
	ck_assert_string_eq(profile_error("model,gpus,epoch_s\nm,1,1\nm,1,2\n"),
			 "p.csv:3:3: column 'gpus': a second row for model m on 1 GPUs");
	ck_assert_string_eq(profile_error("model,gpus\nm,1\n"),
			 "p.csv:1:1: header has no column 'epoch_s' (header: model,gpus)");
	ck_assert_string_eq(profile_error("model,gpus,epoch_s\nm,1,1,7\n"),
			 "p.csv:2:7: more fields than the header has columns (3)");
	ck_assert_string_eq(profile_error("model,gpus,epoch_s\nm,1,nan\n"),
			 "p.csv:2:5: column 'epoch_s': 'nan' is not a number > 0");
	ck_assert_string_eq(profile_error("# only a comment\n"),
			 "p.csv: empty file: expected a header row");
	ck_assert_string_eq(profile_error("model,model,epoch_s\n"),
			 "p.csv:1:7: column 'model' appears twice in the header");
}
END_TEST

START_TEST(test_comments_blank_lines_crlf_and_unknown_columns_are_allowed)
{
	ProfileTable p = ProfileTable::from_csv(CsvTable::parse(
		"p.csv", "# profiles\r\nmodel,extra,gpus,epoch_s\r\n\r\n"
			 "  # indented comment\nm, x ,1, 2.5 \r\n"));
	ck_assert_double_eq(*p.epoch_s(p.model_id("m"), 1, 1), 2.5);
}
END_TEST

START_TEST(test_workload_is_kept_in_submission_order)
{
	Workload w = workload_from_csv(
		CsvTable::parse("w.csv", "job_id,submit_s,model,epochs,gpus\n"
					 "b,5,m,1,1\na,0,m,2,2\nc,5,m,1,1\n"),
		profiles());
	ck_assert_int_eq(w.jobs.size(), 3);
	ck_assert_string_eq(w.jobs[0].id, "a");
	ck_assert_string_eq(w.jobs[1].id, "b"); // tie: file order
	ck_assert_string_eq(w.jobs[2].id, "c");
	ck_assert_int_eq(w.jobs[0].gpus_min, 2); // default range = gpus
	ck_assert_int_eq(w.jobs[0].gpus_max, 2);
	ck_assert_int_eq(w.jobs[0].line, 3);
	ck_assert(!w.offline());
	ck_assert_int_eq(w.index_of("c"), 2);
	ck_assert_int_eq(w.index_of("zz"), -1);
}
END_TEST

START_TEST(test_workload_elastic_column_defaults_to_elastic)
{
	Workload w = workload_from_csv(
		CsvTable::parse("w.csv", "job_id,submit_s,model,epochs,gpus,elastic\n"
					 "a,0,m,1,1,0\nb,0,m,1,1,1\nc,0,m,1,1,\n"),
		profiles());
	ck_assert(!w.jobs[0].elastic);
	ck_assert(w.jobs[1].elastic);
	ck_assert(w.jobs[2].elastic); // empty: the default
	ck_assert_string_eq(workload_error("job_id,submit_s,model,epochs,gpus,elastic\n"
					   "a,0,m,1,1,yes\n"),
			    "w.csv:2:11: column 'elastic': elastic must be 1 or 0, not 'yes'");
}
END_TEST

START_TEST(test_workload_priority_and_account_columns)
{
	Workload w = workload_from_csv(
		CsvTable::parse("w.csv", "job_id,submit_s,model,epochs,gpus,priority,account\n"
					 "a,0,m,1,1,10,phys\nb,0,m,1,1,-2.5,chem\n"
					 "c,0,m,1,1,,phys\nd,0,m,1,1,1e3,\n"),
		profiles());
	ck_assert_double_eq(w.jobs[0].priority, 10);
	ck_assert_double_eq(w.jobs[1].priority, -2.5); // any finite number
	ck_assert_double_eq(w.jobs[2].priority, 0);    // empty: the default
	ck_assert_double_eq(w.jobs[3].priority, 1000);
	ck_assert_int_eq(w.accounts.size(), 2); // in order of first use
	ck_assert_string_eq(w.accounts[0], "phys");
	ck_assert_string_eq(w.accounts[1], "chem");
	ck_assert_int_eq(w.jobs[0].account, 0);
	ck_assert_int_eq(w.jobs[1].account, 1);
	ck_assert_int_eq(w.jobs[2].account, 0);
	ck_assert_int_eq(w.jobs[3].account, -1); // empty: none
	ck_assert(!w.has_site_limits()); // neither limits where a job runs
}
END_TEST

START_TEST(test_workload_priority_and_account_errors_name_the_column)
{
	const char *head = "job_id,submit_s,model,epochs,gpus,priority,account\n";
	struct {
		const char *row;
		const char *error;
	} cases[] = {
		{ "a,0,m,1,1,high,x", "w.csv:2:11: column 'priority': 'high' is not a finite number" },
		{ "a,0,m,1,1,1e999,x", "w.csv:2:11: column 'priority': '1e999' is not a finite number" },
		{ "a,0,m,1,1,nan,x", "w.csv:2:11: column 'priority': 'nan' is not a finite number" },
		{ "a,0,m,1,1,1,a b", "w.csv:2:13: column 'account': account wants a name of "
				     "letters, digits, '_', '-' or '.', not 'a b'" },
	};
	for (auto &c : cases) {
		std::string text = std::string(head) + c.row + "\n";
		ck_assert_string_eq(workload_error(text.c_str()), c.error);
	}
}
END_TEST

START_TEST(test_workload_errors_name_file_line_and_column)
{
	const char *head = "job_id,submit_s,model,epochs,gpus,gpus_min,gpus_max\n";
	struct {
		const char *row;
		const char *error;
	} cases[] = {
		{ "a,-1,m,1,1,1,1", "w.csv:2:3: column 'submit_s': '-1' is not a number >= 0" },
		{ "a,0,zz,1,1,1,1", "w.csv:2:5: column 'model': model 'zz' has no row in the profiles" },
		{ "a,0,m,0,1,1,1", "w.csv:2:7: column 'epochs': '0' is not a number > 0" },
		{ "a,0,m,1,0,1,1", "w.csv:2:9: column 'gpus': '0' is not an integer in 1..65536" },
		{ "a,0,m,1,1,2,2", "w.csv:2:11: column 'gpus_min': gpus_min 2 is above gpus 1" },
		{ "a,0,m,1,4,1,2", "w.csv:2:13: column 'gpus_max': gpus_max 2 is below gpus 4" },
		{ ",0,m,1,1,1,1", "w.csv:2:1: column 'job_id': empty job_id" },
		{ "a,0,m,1e999,1,1,1", "w.csv:2:7: column 'epochs': '1e999' is not a number > 0" },
	};
	for (auto &c : cases) {
		std::string text = std::string(head) + c.row + "\n";
		ck_assert_string_eq(workload_error(text.c_str()), c.error);
	}
	ck_assert_string_eq(workload_error("job_id,submit_s,model,epochs,gpus\n"
					"a,0,m,1,1\na,0,m,1,1\n")
				 ,
			 "w.csv:3:1: column 'job_id': job_id 'a' appears twice");
}
END_TEST

START_TEST(test_schedule_reader_checks_rows_not_rules)
{
	Workload w = workload_from_csv(
		CsvTable::parse("w.csv", "job_id,submit_s,model,epochs,gpus\na,0,m,1,2\n"),
		profiles());
	Schedule s = schedule_from_csv(
		CsvTable::parse("s.csv", "job_id,start_s,end_s,gpus,nodes,epochs\n"
					 "a,0,1,2,1;0,0.5\n"),
		w);
	ck_assert_int_eq(s.size(), 1);
	ck_assert_int_eq(s[0].nodes[0], 0); // sorted
	ck_assert_int_eq(s[0].nodes[1], 1);
	ck_assert_int_eq(s[0].distinct_nodes(), 2);
	const char *bad[][2] = {
		{ "b,0,1,1,0,1", "s.csv:2:1: column 'job_id': job 'b' is not in the workload" },
		{ "a,2,1,1,0,1", "s.csv:2:5: column 'end_s': end_s is before start_s" },
		{ "a,0,1,2,0,1", "s.csv:2:9: column 'nodes': lists 1 GPUs but gpus is 2 (one node index per GPU)" },
		{ "a,0,1,2,0;;1,1", "s.csv:2:9: column 'nodes': '0;;1' is not a ';'-separated list of node indices (0-based)" },
		{ "a,0,1,1,-1,1", "s.csv:2:9: column 'nodes': '-1' is not a ';'-separated list of node indices (0-based)" },
	};
	for (auto &b : bad) {
		std::string text = std::string("job_id,start_s,end_s,gpus,nodes,epochs\n") + b[0] + "\n";
		std::string got = "(no error)";
		try {
			schedule_from_csv(CsvTable::parse("s.csv", text), w);
		} catch (const InputError &e) {
			got = e.what();
		}
		ck_assert_string_eq(got, b[1]);
	}
}
END_TEST

START_TEST(test_numbers_are_written_to_read_back_exactly)
{
	ck_assert_string_eq(format_number(12.5), "12.5");
	ck_assert_string_eq(format_number(0.1), "0.1");
	ck_assert_string_eq(format_number(3), "3");
	ck_assert_string_eq(format_number(1.0 / 3), "0.3333333333333333");
}
END_TEST

START_TEST(test_unreadable_file_is_an_input_error)
{
	std::string got;
	try {
		CsvTable::read_file("/nonexistent/p.csv");
	} catch (const InputError &e) {
		got = e.what();
	}
	ck_assert_string_eq(got,
			 "/nonexistent/p.csv: cannot read: No such file or directory");
}
END_TEST

// Random byte edits of valid files (a deterministic fuzz loop; under
// ASan/UBSan in the sanitizer build) either parse or throw InputError:
// never a crash, never another exception.
START_TEST(test_mutated_inputs_parse_or_fail_with_input_error)
{
	const std::string profiles = kProfiles;
	const std::string workload = "job_id,submit_s,model,epochs,gpus,gpus_min,gpus_max\n"
				     "a,0,m,1.5,1,1,2\nb,3,n,2,4,4,4\n";
	const std::string schedule = "job_id,start_s,end_s,gpus,nodes,epochs\n"
				     "a,0,6,2,0;0,1.5\nb,3,9,4,0;0;1;1,2\n";
	const char alphabet[] = ",;#\n\r-+.e0123456789xmna \t\xff\xc3";
	uint64_t x = 88172645463325252ull; // xorshift64: same cases every run
	auto next = [&x] {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		return x;
	};
	int parsed = 0, rejected = 0;
	for (int i = 0; i < 3000; i++) {
		std::string p = profiles, w = workload, sc = schedule;
		std::string &t = i % 3 == 0 ? p : i % 3 == 1 ? w : sc;
		for (int edits = 1 + next() % 3; edits > 0; edits--) {
			size_t at = next() % (t.size() + 1);
			switch (next() % 3) {
			case 0:
				t.insert(at, 1, alphabet[next() % (sizeof(alphabet) - 1)]);
				break;
			case 1:
				if (at < t.size())
					t.erase(at, 1);
				break;
			default:
				if (at < t.size())
					t[at] = alphabet[next() % (sizeof(alphabet) - 1)];
			}
		}
		try {
			ProfileTable pt = ProfileTable::from_csv(CsvTable::parse("p.csv", p));
			Workload wl = workload_from_csv(CsvTable::parse("w.csv", w), pt);
			schedule_from_csv(CsvTable::parse("s.csv", sc), wl);
			parsed++;
		} catch (const InputError &) {
			rejected++;
		}
	}
	// Both outcomes happen, so the loop exercises more than one path.
	ck_assert_int_gt(parsed, 100);
	ck_assert_int_gt(rejected, 100);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("sim_inputs");
	TCase *tc = tcase_create("formats");
	tcase_add_test(tc, test_cluster_spec_parses_nodes_and_gpus);
	tcase_add_test(tc, test_scaled_profiles_keep_the_rows_and_scale_their_times);
	tcase_add_test(tc, test_cluster_spec_rejects_malformed_values);
	tcase_add_test(tc, test_profile_lookup_prefers_the_exact_spread);
	tcase_add_test(tc, test_profile_row_without_nodes_applies_to_any_spread);
	tcase_add_test(tc, test_profile_counts_are_sorted_and_distinct);
	tcase_add_test(tc, test_profile_errors_name_file_line_and_column);
	tcase_add_test(tc, test_comments_blank_lines_crlf_and_unknown_columns_are_allowed);
	tcase_add_test(tc, test_workload_is_kept_in_submission_order);
	tcase_add_test(tc, test_workload_errors_name_file_line_and_column);
	tcase_add_test(tc, test_workload_elastic_column_defaults_to_elastic);
	tcase_add_test(tc, test_workload_priority_and_account_columns);
	tcase_add_test(tc, test_workload_priority_and_account_errors_name_the_column);
	tcase_add_test(tc, test_schedule_reader_checks_rows_not_rules);
	tcase_add_test(tc, test_numbers_are_written_to_read_back_exactly);
	tcase_add_test(tc, test_unreadable_file_is_an_input_error);
	tcase_add_test(tc, test_mutated_inputs_parse_or_fail_with_input_error);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
