// test_admin_comment.cpp - the job record in a job's AdminComment
// ("PREFIX omru: KEY=VALUE ..."), which select/omru, spank_omru and
// omru-report all read and write: parse and format read back, an admin's
// prefix survives, merge lets the writer's keys win, the length bound drops
// rows first, and every malformed field, row or count list is refused with
// a message that names it.
#include "check_cxx.hpp"

#include <cstring>
#include <string>
#include <vector>

#include "model/admin_comment.hpp"
#include "model/decimal_text.hpp"
#include "omru/omru_record.h"

using namespace omru;

namespace {

AdminComment parsed(const std::string &text)
{
	auto r = parse_admin_comment(text);
	ck_assert_msg(r.ok(), "'%s' refused: %s", text.c_str(), r.error().c_str());
	return r.value();
}

// The error parse_admin_comment gives for `text`, or "(ok)".
std::string error_of(const std::string &text)
{
	auto r = parse_admin_comment(text);
	return r.ok() ? "(ok)" : r.error();
}

// "k=v k=v" for the fields, in order: one string to compare.
std::string fields_of(const AdminComment &c)
{
	std::string out;
	for (const auto &f : c.fields)
		out += (out.empty() ? "" : " ") + f.first + "=" + f.second;
	return out;
}

std::vector<CommentRow> rows_of(const std::string &value)
{
	auto r = parse_comment_rows(value);
	ck_assert_msg(r.ok(), "rows '%s' refused: %s", value.c_str(),
		      r.error().c_str());
	return r.value();
}

std::string rows_error(const std::string &value)
{
	auto r = parse_comment_rows(value);
	return r.ok() ? "(ok)" : r.error();
}

std::string counts_error(const std::string &value)
{
	auto r = parse_count_list(value);
	return r.ok() ? "(ok)" : r.error();
}

bool contains(const std::string &s, const std::string &part)
{
	return s.find(part) != std::string::npos;
}

// What select/omru writes at job start, then spank_omru while running and
// at the end: the record of a whole job.
const char kFullRecord[] =
	"omru: gpus=4 nodes=n[1-2] planned_start=2026-11-22T12:00:00 "
	"predicted_s=812 profile=measured model=resnet50 epochs=90 range=1-8 "
	"profiling=1,2,4 rows=1@1:20.5,2@1:11 epoch_s=10.2 epochs_done=90 "
	"samples_s=4890 data_wait=0.031 workers=4 profile_s=12.5 real_s=930";

} // namespace

// ---- parse and format ----------------------------------------------------

START_TEST(test_full_record_reads_back_unchanged)
{
	AdminComment c = parsed(kFullRecord);
	ck_assert_string_eq(c.prefix, "");
	ck_assert_int_eq(c.fields.size(), 17);
	ck_assert_string_eq(c.fields[0].first, "gpus");
	ck_assert_string_eq(c.fields[0].second, "4");
	ck_assert_string_eq(*c.get("nodes"), "n[1-2]");
	ck_assert_string_eq(*c.get("rows"), "1@1:20.5,2@1:11");
	ck_assert_string_eq(c.fields[16].first, "real_s");
	ck_assert_string_eq(c.fields[16].second, "930");
	ck_assert_string_eq(format_admin_comment(c), kFullRecord);
}
END_TEST

START_TEST(test_prefix_before_the_tag_is_kept)
{
	AdminComment c = parsed("ticket 4711: user asked for 8 GPUs omru: gpus=4");
	ck_assert_string_eq(c.prefix, "ticket 4711: user asked for 8 GPUs");
	ck_assert_string_eq(fields_of(c), "gpus=4");
	ck_assert_string_eq(format_admin_comment(c),
			    "ticket 4711: user asked for 8 GPUs omru: gpus=4");
}
END_TEST

START_TEST(test_text_without_the_tag_is_all_prefix)
{
	AdminComment c = parsed("  node n3 drained, rerun  ");
	ck_assert_string_eq(c.prefix, "node n3 drained, rerun");
	ck_assert_int_eq(c.fields.size(), 0);
	ck_assert(!c.empty());
	ck_assert_string_eq(format_admin_comment(c), "node n3 drained, rerun");
}
END_TEST

START_TEST(test_empty_text_is_an_empty_record_and_formats_empty)
{
	ck_assert(parsed("").empty());
	ck_assert(parsed("omru:").empty());
	ck_assert(parsed("  omru:   ").empty());
	ck_assert_string_eq(format_admin_comment(AdminComment{}), "");
}
END_TEST

START_TEST(test_blanks_tabs_and_newlines_separate_fields)
{
	AdminComment c = parsed(" note\t omru:\ta=1  b=2\nc=3\r\n");
	ck_assert_string_eq(c.prefix, "note");
	ck_assert_string_eq(fields_of(c), "a=1 b=2 c=3");
	ck_assert_string_eq(format_admin_comment(c), "note omru: a=1 b=2 c=3");
}
END_TEST

START_TEST(test_value_may_hold_equals_colons_and_brackets)
{
	AdminComment c = parsed("omru: x=a=b nodes=gpu[01-04],login t=12:00:00");
	ck_assert_string_eq(*c.get("x"), "a=b");
	ck_assert_string_eq(*c.get("nodes"), "gpu[01-04],login");
	ck_assert_string_eq(*c.get("t"), "12:00:00");
}
END_TEST

START_TEST(test_empty_value_is_read_as_empty)
{
	AdminComment c = parsed("omru: model= gpus=2");
	ck_assert_string_eq(*c.get("model"), "");
	ck_assert_string_eq(format_admin_comment(c), "omru: model= gpus=2");
}
END_TEST

START_TEST(test_repeated_key_keeps_its_place_and_the_last_value)
{
	AdminComment c = parsed("omru: a=1 b=2 a=3");
	ck_assert_string_eq(fields_of(c), "a=3 b=2");
}
END_TEST

START_TEST(test_key_of_32_characters_is_accepted)
{
	const std::string key(32, 'k');
	AdminComment c = parsed("omru: " + key + "=1 under_score=2");
	ck_assert_string_eq(*c.get(key), "1");
	ck_assert_string_eq(*c.get("under_score"), "2");
}
END_TEST

// ---- malformed fields ----------------------------------------------------

START_TEST(test_field_without_equals_is_refused_naming_it)
{
	ck_assert_string_eq(error_of("omru: gpus=4 broken"),
			    "AdminComment field 'broken' is not KEY=VALUE "
			    "(KEY: a-z and _)");
}
END_TEST

START_TEST(test_field_without_key_is_refused)
{
	ck_assert(contains(error_of("omru: =4"), "'=4'"));
}
END_TEST

START_TEST(test_key_with_capitals_digits_or_dashes_is_refused)
{
	ck_assert(contains(error_of("omru: GPUS=4"), "'GPUS=4'"));
	ck_assert(contains(error_of("omru: gpus2=4"), "'gpus2=4'"));
	ck_assert(contains(error_of("omru: gpu-s=4"), "'gpu-s=4'"));
	ck_assert(contains(error_of("omru: gpus.x=4"), "'gpus.x=4'"));
}
END_TEST

START_TEST(test_key_of_33_characters_is_refused)
{
	const std::string key(33, 'k');
	ck_assert(contains(error_of("omru: " + key + "=1"), key));
}
END_TEST

START_TEST(test_record_cut_in_a_key_is_refused)
{
	// A line cut by hand or by a tool after "profile_": the last field has
	// no '='.
	ck_assert(contains(error_of("omru: gpus=4 predicted_s=812 profile_"),
			   "'profile_'"));
}
END_TEST

// ---- get, set, erase, merge ----------------------------------------------

START_TEST(test_get_of_a_missing_key_is_null)
{
	AdminComment c = parsed("omru: gpus=4");
	ck_assert_ptr_null(c.get("nodes"));
	ck_assert_ptr_null(c.get("gpu"));
	ck_assert_ptr_null(c.get(""));
}
END_TEST

START_TEST(test_set_replaces_in_place_and_appends_new_keys)
{
	AdminComment c = parsed("omru: a=1 b=2 c=3");
	c.set("b", "20");
	c.set("d", "4");
	ck_assert_string_eq(fields_of(c), "a=1 b=20 c=3 d=4");
}
END_TEST

START_TEST(test_erase_removes_only_that_key)
{
	AdminComment c = parsed("omru: a=1 b=2 c=3");
	c.erase("b");
	ck_assert_string_eq(fields_of(c), "a=1 c=3");
	c.erase("missing");
	ck_assert_string_eq(fields_of(c), "a=1 c=3");
	c.erase("a");
	c.erase("c");
	ck_assert(c.empty());
	ck_assert_string_eq(format_admin_comment(c), "");
}
END_TEST

START_TEST(test_erasing_every_field_leaves_the_prefix_without_tag)
{
	AdminComment c = parsed("keep me omru: a=1");
	c.erase("a");
	ck_assert_string_eq(format_admin_comment(c), "keep me");
}
END_TEST

START_TEST(test_merge_lets_other_win_keeps_order_and_appends_new_keys)
{
	AdminComment mine = parsed("admin note omru: gpus=4 rows=1@1:20 model=m");
	AdminComment other = parsed("other prefix omru: rows=1@1:19,2@1:10 "
				    "epoch_s=10.2 gpus=8");
	mine.merge(other);
	ck_assert_string_eq(mine.prefix, "admin note");
	ck_assert_string_eq(fields_of(mine),
			    "gpus=8 rows=1@1:19,2@1:10 model=m epoch_s=10.2");
	ck_assert_string_eq(format_admin_comment(mine),
			    "admin note omru: gpus=8 rows=1@1:19,2@1:10 "
			    "model=m epoch_s=10.2");
}
END_TEST

START_TEST(test_merge_of_an_empty_record_changes_nothing)
{
	AdminComment mine = parsed(kFullRecord);
	mine.merge(AdminComment{});
	ck_assert_string_eq(format_admin_comment(mine), kFullRecord);
}
END_TEST

START_TEST(test_merge_into_a_prefix_only_record_adds_the_tag)
{
	AdminComment mine = parsed("hold for maintenance");
	mine.merge(parsed("omru: epochs_done=3"));
	ck_assert_string_eq(format_admin_comment(mine),
			    "hold for maintenance omru: epochs_done=3");
}
END_TEST

// ---- length bound --------------------------------------------------------

START_TEST(test_record_that_fits_is_not_cut)
{
	const std::string full = kFullRecord;
	ck_assert_string_eq(format_admin_comment(parsed(full), full.size()), full);
}
END_TEST

START_TEST(test_rows_are_dropped_first_when_too_long)
{
	AdminComment c = parsed("omru: gpus=4 rows=1@1:20.5,2@1:11 real_s=930");
	// The whole line has 44 characters; without rows, 23.
	ck_assert_string_eq(format_admin_comment(c, 43), "omru: gpus=4 real_s=930");
	ck_assert_string_eq(format_admin_comment(c, 23), "omru: gpus=4 real_s=930");
	ck_assert_string_eq(format_admin_comment(c, 44),
			    "omru: gpus=4 rows=1@1:20.5,2@1:11 real_s=930");
}
END_TEST

START_TEST(test_trailing_fields_go_after_rows)
{
	AdminComment c = parsed("note omru: gpus=4 rows=1@1:20 predicted_s=812 real_s=930");
	// Without rows the line has 44 characters.
	ck_assert_string_eq(format_admin_comment(c, 43), "note omru: gpus=4 predicted_s=812");
	ck_assert_string_eq(format_admin_comment(c, 33), "note omru: gpus=4 predicted_s=812");
	ck_assert_string_eq(format_admin_comment(c, 32), "note omru: gpus=4");
	ck_assert_string_eq(format_admin_comment(c, 22), "note omru: gpus=4");
	ck_assert_string_eq(format_admin_comment(c, 16), "note");
}
END_TEST

START_TEST(test_prefix_longer_than_the_bound_is_cut_to_it)
{
	AdminComment c = parsed("a very long admin note omru: gpus=4");
	ck_assert_string_eq(format_admin_comment(c, 6), "a very");
	ck_assert_string_eq(format_admin_comment(c, 0), "");
}
END_TEST

START_TEST(test_cut_never_splits_a_utf8_character)
{
	// "é" is two bytes: a bound in its middle keeps the text before it.
	AdminComment c;
	c.prefix = "caf\xc3\xa9 ok";
	c.set("gpus", "4");
	ck_assert_string_eq(format_admin_comment(c, 4), "caf");
	ck_assert_string_eq(format_admin_comment(c, 5), "caf\xc3\xa9");
}
END_TEST

START_TEST(test_result_never_exceeds_the_bound_and_reads_back)
{
	AdminComment c = parsed(std::string("ticket 12 ") + kFullRecord);
	AdminComment no_rows = c;
	no_rows.erase("rows");
	const std::string full = format_admin_comment(c);
	for (size_t max = 0; max <= full.size() + 2; max++) {
		const std::string out = format_admin_comment(c, max);
		ck_assert_msg(out.size() <= max, "bound %zu: %zu characters", max,
			      out.size());
		auto back = parse_admin_comment(out);
		ck_assert_msg(back.ok(), "bound %zu: '%s' does not read back: %s",
			      max, out.c_str(), back.error().c_str());
		// What is kept is the whole record, or the record without rows
		// cut after some field, each field with its value.
		if (max >= 9)
			ck_assert_string_eq(back.value().prefix, "ticket 12");
		const auto &kept = back.value().fields;
		const AdminComment &from = kept.size() == c.fields.size() ? c : no_rows;
		ck_assert_msg(kept.size() <= from.fields.size(), "bound %zu", max);
		for (size_t i = 0; i < kept.size(); i++)
			ck_assert_msg(kept[i] == from.fields[i],
				      "bound %zu: field %zu is %s=%s", max, i,
				      kept[i].first.c_str(), kept[i].second.c_str());
	}
}
END_TEST

START_TEST(test_default_bound_is_kmaxadmincomment)
{
	AdminComment c;
	c.set("model", "m");
	c.set("rows", std::string(2000, '1'));
	const std::string out = format_admin_comment(c);
	ck_assert_uint_le(out.size(), kMaxAdminComment);
	ck_assert_string_eq(out, "omru: model=m");
}
END_TEST

// ---- profile rows --------------------------------------------------------

START_TEST(test_rows_are_read_in_order)
{
	std::vector<CommentRow> r = rows_of("1@1:20.5,2@1:11,8@2:3.25,4@0:6");
	ck_assert_int_eq(r.size(), 4);
	ck_assert_int_eq(r[0].gpus, 1);
	ck_assert_int_eq(r[0].nodes, 1);
	ck_assert_double_eq(r[0].epoch_s, 20.5);
	ck_assert_int_eq(r[1].gpus, 2);
	ck_assert_double_eq(r[1].epoch_s, 11);
	ck_assert_int_eq(r[2].gpus, 8);
	ck_assert_int_eq(r[2].nodes, 2);
	ck_assert_double_eq(r[2].epoch_s, 3.25);
	ck_assert_int_eq(r[3].nodes, 0); // not known
}
END_TEST

START_TEST(test_row_bounds_are_accepted)
{
	std::vector<CommentRow> r = rows_of("65536@65536:1e7,1@0:0.0001");
	ck_assert_int_eq(r[0].gpus, 65536);
	ck_assert_int_eq(r[0].nodes, 65536);
	ck_assert_double_eq(r[0].epoch_s, 1e7);
	ck_assert_double_eq(r[1].epoch_s, 0.0001);
	// Beyond them (doc/report-bounds.md): refused, never stored.  1e-300
	// next to 1e9 made a spread ratio of inf that failed every plan.
	for (const char *bad : { "2@1:1e-300", "2@2:1e9", "1@1:0.00009", "1@1:1.1e7" })
		ck_assert_msg(contains(rows_error(bad), "1e-4 <= EPOCH_S <= 1e7"), "%s", bad);
}
END_TEST

START_TEST(test_replace_keeps_an_admins_text_and_drops_old_fields)
{
	// select/omru writes a fresh record at a job's start: an admin's text
	// stays in front, the fields of an earlier run do not.
	char out[256], err[128];
	ck_assert_int_eq(omru_record_replace("ticket 42 omru: gpus=8 real_s=10",
					     "omru: gpus=2 predicted_s=30", out,
					     sizeof(out), err, sizeof(err)),
			 OMRU_OK);
	ck_assert_str_eq(out, "ticket 42 omru: gpus=2 predicted_s=30");
	ck_assert_int_eq(omru_record_replace("set by job_submit", "omru: gpus=1", out,
					     sizeof(out), err, sizeof(err)),
			 OMRU_OK);
	ck_assert_str_eq(out, "set by job_submit omru: gpus=1");
	ck_assert_int_eq(omru_record_replace(NULL, "omru: gpus=1", out, sizeof(out),
					     err, sizeof(err)),
			 OMRU_OK);
	ck_assert_str_eq(out, "omru: gpus=1");
	// Not ours to parse: kept whole, in front.
	ck_assert_int_eq(omru_record_replace("omru: Bad-Key=1", "omru: gpus=1", out,
					     sizeof(out), err, sizeof(err)),
			 OMRU_OK);
	ck_assert_str_eq(out, "omru: Bad-Key=1 omru: gpus=1");
	ck_assert_int_eq(omru_record_replace("x", "omru: nokey", out, sizeof(out), err,
					     sizeof(err)),
			 OMRU_EINVAL);
}
END_TEST

START_TEST(test_merge_request_round_trips_and_keeps_other_fields)
{
	// A node's fields go to slurmctld as a request; job_submit/omru
	// applies it to the record as it is then (an admin's text and the
	// other writers' fields stay).
	const char *keys[] = { "epochs_done", "loader" };
	const char *values[] = { "12", "4:100:0.1:2" };
	char req[256], out[256], err[128];
	ck_assert_int_eq(omru_record_request(keys, values, 2, req, sizeof(req), err,
					     sizeof(err)),
			 OMRU_OK);
	ck_assert_str_eq(req, "omru-merge: epochs_done=12 loader=4:100:0.1:2");
	ck_assert_int_eq(omru_record_is_request(req), 1);
	ck_assert_int_eq(omru_record_is_request("omru: gpus=2"), 0);
	ck_assert_int_eq(omru_record_is_request(NULL), 0);
	ck_assert_int_eq(omru_record_merged_in_slurmctld("lua,omru"), 1);
	ck_assert_int_eq(omru_record_merged_in_slurmctld("job_submit/omru"), 1);
	ck_assert_int_eq(omru_record_merged_in_slurmctld("omru_x,lua"), 0);
	ck_assert_int_eq(omru_record_merged_in_slurmctld(NULL), 0);
	ck_assert_int_eq(omru_record_apply("ticket 7 omru: gpus=2 epochs_done=3", req,
					   out, sizeof(out), err, sizeof(err)),
			 OMRU_OK);
	ck_assert_str_eq(out, "ticket 7 omru: gpus=2 epochs_done=12 loader=4:100:0.1:2");
	ck_assert_int_eq(omru_record_apply(NULL, req, out, sizeof(out), err,
					   sizeof(err)),
			 OMRU_OK);
	ck_assert_str_eq(out, "omru: epochs_done=12 loader=4:100:0.1:2");
}
END_TEST

START_TEST(test_merge_request_refuses_anything_but_fields)
{
	char out[64] = "untouched", err[128];
	const char *bad[] = {
		"omru: gpus=2",              // a record, not a request
		"omru-merge:",               // no field
		"omru-merge: Gpus=2",        // not a key
		"omru-merge: gpus",          // not KEY=VALUE
		"ticket omru-merge: gpus=1", // text in front
		"omru-merge: a=1 omru: b=2", // a record inside
	};
	for (const char *r : bad) {
		ck_assert_msg(omru_record_apply("omru: x=1", r, out, sizeof(out), err,
						sizeof(err)) == OMRU_EINVAL,
			      "%s", r);
		ck_assert_str_eq(out, "untouched");
	}
	const char *keys[] = { "bad key" }, *values[] = { "1" };
	ck_assert_int_eq(omru_record_request(keys, values, 1, out, sizeof(out), err,
					     sizeof(err)),
			 OMRU_EINVAL);
	const char *k2[] = { "rows" }, *v2[] = { "has blank" };
	ck_assert_int_eq(omru_record_request(k2, v2, 1, out, sizeof(out), err,
					     sizeof(err)),
			 OMRU_EINVAL);
}
END_TEST

START_TEST(test_rows_cut_to_the_record_keep_whole_rows)
{
	// spank_omru's record holds ~1 KiB: rows past it are dropped whole
	// (a row cut mid-number would read as another epoch time).
	std::string csv = "model,gpus,epoch_s\n";
	for (int g = 1; g <= 32; g++) // kMaxCommentRows
		csv += "m," + std::to_string(g) + ",1234.56789012345\n";
	char out[100], err[256];
	ck_assert_int_eq(omru_record_rows(csv.c_str(), csv.size(), "m", 64, 1, out,
					  sizeof(out), err, sizeof(err)),
			 OMRU_OK);
	ck_assert_int_lt(strlen(out), sizeof(out));
	std::vector<CommentRow> back = rows_of(out);
	ck_assert_int_ge(back.size(), 3);
	for (const CommentRow &r : back)
		ck_assert_double_eq(r.epoch_s, 1234.56789012345);
	ck_assert_int_eq(back.front().gpus, 1);
}
END_TEST

// The README's "write rows model,gpus,epoch_s,nodes": rows appended
// without the header line are read as those columns (once all refused:
// "column '1' appears twice in the header"); with the header as before.
START_TEST(test_rows_without_their_header_line_are_read_as_the_documented_columns)
{
	char out[256], err[256];
	const std::string bare = "m,1,8.2,1\nm,2,4.2,1\nm,4,2.2\n";
	ck_assert_int_eq(omru_record_rows(bare.c_str(), bare.size(), "m", 4, 1, out,
					  sizeof(out), err, sizeof(err)),
			 OMRU_OK);
	ck_assert_str_eq(out, "1@1:8.2,2@1:4.2,4@0:2.2");
	const std::string headed = "model,gpus,epoch_s,nodes\n" + bare;
	ck_assert_int_eq(omru_record_rows(headed.c_str(), headed.size(), "m", 4, 1, out,
					  sizeof(out), err, sizeof(err)),
			 OMRU_OK);
	ck_assert_str_eq(out, "1@1:8.2,2@1:4.2,4@0:2.2");
	// Header-less rows are checked as any: a bad one names its line.
	const std::string bad = "m,1,8.2\nm,2,-1\n";
	ck_assert_int_eq(omru_record_rows(bad.c_str(), bad.size(), "m", 4, 1, out,
					  sizeof(out), err, sizeof(err)),
			 OMRU_EINVAL);
	ck_assert_msg(std::string(err).rfind("OMRU_PROFILE_OUT:2:", 0) == 0, "%s", err);
	const std::string five = "m,1,8.2,1,9\n";
	ck_assert_int_eq(omru_record_rows(five.c_str(), five.size(), "m", 4, 1, out,
					  sizeof(out), err, sizeof(err)),
			 OMRU_EINVAL);
	ck_assert_msg(std::string(err).find("more fields than the header has columns") !=
			      std::string::npos,
		      "%s", err);
}
END_TEST

START_TEST(test_rows_format_and_read_back)
{
	std::vector<CommentRow> rows = { { 1, 1, 20.5 }, { 2, 1, 11 },
					 { 4, 0, 0.1 }, { 8, 2, 1e7 },
					 { 3, 3, 123456.789012345 } };
	const std::string text = format_comment_rows(rows);
	ck_assert_string_eq(text, "1@1:20.5,2@1:11,4@0:0.1,8@2:1e+07,"
				  "3@3:123456.789012345");
	std::vector<CommentRow> back = rows_of(text);
	ck_assert_int_eq(back.size(), rows.size());
	for (size_t i = 0; i < rows.size(); i++) {
		ck_assert_int_eq(back[i].gpus, rows[i].gpus);
		ck_assert_int_eq(back[i].nodes, rows[i].nodes);
		ck_assert_double_eq(back[i].epoch_s, rows[i].epoch_s);
	}
	ck_assert_string_eq(format_comment_rows({}), "");
}
END_TEST

START_TEST(test_row_without_at_or_colon_is_refused_naming_it)
{
	ck_assert_string_eq(rows_error("1@1:2,4:3"),
			    "profile row '4:3': expected GPUS@NODES:EPOCH_S "
			    "(1 <= GPUS <= 65536, 0 <= NODES <= GPUS, "
			    "1e-4 <= EPOCH_S <= 1e7)");
	ck_assert(contains(rows_error("4@1"), "'4@1'"));
	ck_assert(contains(rows_error("4:1@2"), "'4:1@2'")); // ':' before '@'
}
END_TEST

START_TEST(test_row_gpus_out_of_range_is_refused)
{
	ck_assert(contains(rows_error("0@0:1"), "'0@0:1'"));
	ck_assert(contains(rows_error("65537@1:1"), "'65537@1:1'"));
	ck_assert(contains(rows_error("-1@0:1"), "'-1@0:1'"));
	ck_assert(contains(rows_error("@1:1"), "'@1:1'"));
}
END_TEST

START_TEST(test_row_nodes_above_gpus_or_negative_is_refused)
{
	ck_assert(contains(rows_error("2@3:1"), "'2@3:1'"));
	ck_assert(contains(rows_error("2@-1:1"), "'2@-1:1'"));
	ck_assert(contains(rows_error("2@:1"), "'2@:1'"));
}
END_TEST

START_TEST(test_row_epoch_not_in_range_is_refused)
{
	ck_assert(contains(rows_error("1@1:0"), "'1@1:0'"));
	ck_assert(contains(rows_error("1@1:-2"), "'1@1:-2'"));
	ck_assert(contains(rows_error("1@1:1.5e9"), "'1@1:1.5e9'"));
	ck_assert(contains(rows_error("1@1:nan"), "'1@1:nan'"));
	ck_assert(contains(rows_error("1@1:inf"), "'1@1:inf'"));
	ck_assert(contains(rows_error("1@1:"), "'1@1:'"));
}
END_TEST

START_TEST(test_row_numbers_must_be_plain_decimals)
{
	ck_assert(contains(rows_error("1@1:12s"), "'1@1:12s'"));
	ck_assert(contains(rows_error("1@1:2:3"), "'1@1:2:3'"));
	ck_assert(contains(rows_error("1@1: 2"), "'1@1: 2'"));
	ck_assert(contains(rows_error("1@1:+2"), "'1@1:+2'"));
	ck_assert(contains(rows_error("1@1:0x10"), "'1@1:0x10'"));
	ck_assert(contains(rows_error("+1@1:2"), "'+1@1:2'"));
	ck_assert(contains(rows_error(" 1@1:2"), "' 1@1:2'"));
	ck_assert(contains(rows_error("1.0@1:2"), "'1.0@1:2'"));
}
END_TEST

START_TEST(test_empty_rows_and_empty_items_are_refused)
{
	ck_assert(contains(rows_error(""), "profile row ''"));
	ck_assert(contains(rows_error("1@1:2,"), "profile row ''"));
	ck_assert(contains(rows_error(",1@1:2"), "profile row ''"));
	ck_assert(contains(rows_error("1@1:2,,2@1:1"), "profile row ''"));
}
END_TEST

START_TEST(test_32_rows_are_accepted_and_33_refused)
{
	std::string value;
	for (int g = 1; g <= 32; g++)
		value += (value.empty() ? "" : ",") + std::to_string(g) + "@1:10";
	ck_assert_int_eq(rows_of(value).size(), kMaxCommentRows);
	ck_assert_string_eq(rows_error(value + ",33@1:10"),
			    "more than 32 profile rows");
}
END_TEST

// ---- count lists ---------------------------------------------------------

START_TEST(test_count_list_is_read_and_formatted)
{
	auto r = parse_count_list("1,2,4");
	ck_assert(r.ok());
	ck_assert_int_eq(r.value().size(), 3);
	ck_assert_int_eq(r.value()[0], 1);
	ck_assert_int_eq(r.value()[1], 2);
	ck_assert_int_eq(r.value()[2], 4);
	ck_assert_string_eq(format_count_list(r.value()), "1,2,4");
	ck_assert_string_eq(format_count_list({}), "");
	ck_assert(parse_count_list("65536").ok());
}
END_TEST

START_TEST(test_count_list_must_ascend_without_repeats)
{
	ck_assert_string_eq(counts_error("2,1"),
			    "count list '2,1': expected ascending distinct "
			    "counts 1..65536, at most 32");
	ck_assert(contains(counts_error("1,2,2"), "'1,2,2'"));
}
END_TEST

START_TEST(test_count_list_refuses_bad_items)
{
	ck_assert(contains(counts_error(""), "count list ''"));
	ck_assert(contains(counts_error("0,1"), "'0,1'"));
	ck_assert(contains(counts_error("1,65537"), "'1,65537'"));
	ck_assert(contains(counts_error("1,,2"), "'1,,2'"));
	ck_assert(contains(counts_error("1,2,"), "'1,2,'"));
	ck_assert(contains(counts_error("1, 2"), "'1, 2'"));
	ck_assert(contains(counts_error("1,x"), "'1,x'"));
}
END_TEST

START_TEST(test_count_list_of_32_is_accepted_and_33_refused)
{
	std::string value;
	for (int g = 1; g <= 32; g++)
		value += (value.empty() ? "" : ",") + std::to_string(g);
	auto r = parse_count_list(value);
	ck_assert(r.ok());
	ck_assert_int_eq(r.value().size(), 32);
	ck_assert(contains(counts_error(value + ",33"), "at most 32"));
}
END_TEST

START_TEST(test_phase_is_read_and_formatted_strictly)
{
	auto p = parse_comment_phase("600:0.5:-0.025");
	ck_assert(p.ok());
	ck_assert_double_eq(p.value().steps, 600);
	ck_assert_double_eq(p.value().first_drop, 0.5);
	ck_assert_double_eq(p.value().recent_drop, -0.025);
	std::string text = format_comment_phase(p.value());
	ck_assert_str_eq(text.c_str(), "600:0.5:-0.025");
	// A trainer's drops to 3 significant digits in the record.
	CommentPhase raw{ 200, 0.5936589232087136, -0.000123456789 };
	text = format_comment_phase(raw);
	ck_assert_msg(text == "200:0.594:-0.000123", "%s", text.c_str());
	for (const char *bad : { "", "600", "600:0.5", "600:0.5:x", "-1:0.5:0.1",
				 "1.5:0.5:0.1", "600:nan:0.1", "600:0.5:1e10", " 600:0.5:0.1",
				 "600:0.5:0.1:2" })
		ck_assert_msg(!parse_comment_phase(bad).ok(), "'%s' accepted", bad);
	// The trainer's file line, as spank_omru forwards it.
	char out[96], err[256];
	const char line[] = "300 0.75 0.125\n";
	ck_assert_int_eq(omru_record_phase(line, sizeof(line) - 1, out, sizeof(out), err,
					   sizeof(err)), OMRU_OK);
	ck_assert_str_eq(out, "300:0.75:0.125");
	for (const char *bad : { "300  0.75 0.125", "300:0.75:0.125", "300 0.75", "a b c", "" })
		ck_assert_int_eq(omru_record_phase(bad, strlen(bad), out, sizeof(out), err,
						   sizeof(err)), OMRU_EINVAL);
	ck_assert(strstr(err, "phase file") != NULL);
}
END_TEST

START_TEST(test_significant_rounds_without_exponent)
{
	const std::pair<double, const char *> cases[] = {
		{ 2400.678332293605, "2401" }, { 217785.83817515094, "217786" },
		{ 0.003083088731341316, "0.003083" }, { 1.5e7, "15000000" },
		{ 0, "0" }, { -61.55, "-61.55" }, { 1e-14, "0" }, { NAN, "0" },
		{ 0.99996, "1" }, { 12.0, "12" },
	};
	for (const auto &[v, want] : cases) {
		std::string got = significant(v, 4);
		ck_assert_msg(got == want, "%.17g: '%s', want '%s'", v, got.c_str(), want);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("admin_comment");
	TCase *parse = tcase_create("parse");
	tcase_add_test(parse, test_full_record_reads_back_unchanged);
	tcase_add_test(parse, test_prefix_before_the_tag_is_kept);
	tcase_add_test(parse, test_text_without_the_tag_is_all_prefix);
	tcase_add_test(parse, test_empty_text_is_an_empty_record_and_formats_empty);
	tcase_add_test(parse, test_blanks_tabs_and_newlines_separate_fields);
	tcase_add_test(parse, test_value_may_hold_equals_colons_and_brackets);
	tcase_add_test(parse, test_empty_value_is_read_as_empty);
	tcase_add_test(parse, test_repeated_key_keeps_its_place_and_the_last_value);
	tcase_add_test(parse, test_key_of_32_characters_is_accepted);
	suite_add_tcase(s, parse);
	TCase *refused = tcase_create("refused");
	tcase_add_test(refused, test_field_without_equals_is_refused_naming_it);
	tcase_add_test(refused, test_field_without_key_is_refused);
	tcase_add_test(refused, test_key_with_capitals_digits_or_dashes_is_refused);
	tcase_add_test(refused, test_key_of_33_characters_is_refused);
	tcase_add_test(refused, test_record_cut_in_a_key_is_refused);
	suite_add_tcase(s, refused);
	TCase *edit = tcase_create("edit");
	tcase_add_test(edit, test_get_of_a_missing_key_is_null);
	tcase_add_test(edit, test_set_replaces_in_place_and_appends_new_keys);
	tcase_add_test(edit, test_erase_removes_only_that_key);
	tcase_add_test(edit, test_erasing_every_field_leaves_the_prefix_without_tag);
	tcase_add_test(edit, test_merge_lets_other_win_keeps_order_and_appends_new_keys);
	tcase_add_test(edit, test_merge_of_an_empty_record_changes_nothing);
	tcase_add_test(edit, test_merge_into_a_prefix_only_record_adds_the_tag);
	tcase_add_test(edit, test_replace_keeps_an_admins_text_and_drops_old_fields);
	tcase_add_test(edit, test_merge_request_round_trips_and_keeps_other_fields);
	tcase_add_test(edit, test_merge_request_refuses_anything_but_fields);
	suite_add_tcase(s, edit);
	TCase *bound = tcase_create("bound");
	tcase_add_test(bound, test_record_that_fits_is_not_cut);
	tcase_add_test(bound, test_rows_are_dropped_first_when_too_long);
	tcase_add_test(bound, test_trailing_fields_go_after_rows);
	tcase_add_test(bound, test_prefix_longer_than_the_bound_is_cut_to_it);
	tcase_add_test(bound, test_cut_never_splits_a_utf8_character);
	tcase_add_test(bound, test_result_never_exceeds_the_bound_and_reads_back);
	tcase_add_test(bound, test_default_bound_is_kmaxadmincomment);
	suite_add_tcase(s, bound);
	TCase *rows = tcase_create("rows");
	tcase_add_test(rows, test_rows_are_read_in_order);
	tcase_add_test(rows, test_row_bounds_are_accepted);
	tcase_add_test(rows, test_rows_cut_to_the_record_keep_whole_rows);
	tcase_add_test(rows, test_rows_without_their_header_line_are_read_as_the_documented_columns);
	tcase_add_test(rows, test_rows_format_and_read_back);
	tcase_add_test(rows, test_row_without_at_or_colon_is_refused_naming_it);
	tcase_add_test(rows, test_row_gpus_out_of_range_is_refused);
	tcase_add_test(rows, test_row_nodes_above_gpus_or_negative_is_refused);
	tcase_add_test(rows, test_row_epoch_not_in_range_is_refused);
	tcase_add_test(rows, test_row_numbers_must_be_plain_decimals);
	tcase_add_test(rows, test_empty_rows_and_empty_items_are_refused);
	tcase_add_test(rows, test_32_rows_are_accepted_and_33_refused);
	suite_add_tcase(s, rows);
	TCase *counts = tcase_create("counts");
	tcase_add_test(counts, test_count_list_is_read_and_formatted);
	tcase_add_test(counts, test_count_list_must_ascend_without_repeats);
	tcase_add_test(counts, test_count_list_refuses_bad_items);
	tcase_add_test(counts, test_count_list_of_32_is_accepted_and_33_refused);
	tcase_add_test(counts, test_phase_is_read_and_formatted_strictly);
	tcase_add_test(counts, test_significant_rounds_without_exponent);
	suite_add_tcase(s, counts);
	return run_suite(s);
}
