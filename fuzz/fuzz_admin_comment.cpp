// fuzz_admin_comment.cpp - the job record (AdminComment "omru: k=v ...")
// and its fields, which nodes write and slurmctld reads back; what is read
// is written again the same.
#include "fuzz_input.hpp"
#include "model/admin_comment.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	std::string_view s = omru_fuzz::text(data, size);
	if (auto c = omru::parse_admin_comment(s); c.ok()) {
		std::string out = omru::format_admin_comment(c.value());
		omru_fuzz::require(out.size() <= omru::kMaxAdminComment, "record within its bound");
	}
	if (auto r = omru::parse_comment_rows(s); r.ok()) {
		auto again = omru::parse_comment_rows(omru::format_comment_rows(r.value()));
		omru_fuzz::require(again.ok() && again.value().size() == r.value().size(),
				   "rows read back");
		for (const omru::CommentRow &row : r.value())
			omru_fuzz::require(row.epoch_s >= 1e-4 && row.epoch_s <= 1e7,
					   "epoch_s within report bounds");
	}
	if (auto r = omru::parse_comment_resizes(s); r.ok())
		omru_fuzz::require(omru::parse_comment_resizes(
					   omru::format_comment_resizes(r.value()))
					   .ok(),
				   "resizes read back");
	if (auto p = omru::parse_comment_phase(s); p.ok())
		omru_fuzz::require(omru::parse_comment_phase(omru::format_comment_phase(p.value()))
					   .ok(),
				   "phase reads back");
	if (auto l = omru::parse_count_list(s); l.ok())
		omru_fuzz::require(omru::parse_count_list(omru::format_count_list(l.value())).ok(),
				   "count list reads back");
	return 0;
}
