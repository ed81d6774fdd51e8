// test_jpeg_folder.cpp - the JPEG data path: libjpeg wrappers that turn
// every failure (a truncated, empty or non-JPEG file) into an error naming
// the file; the ImageFolder layout (classes in name order, other files
// ignored); the torchvision crops, PIL's bilinear filter, the flip and the
// ImageNet normalisation; the synthetic writer's determinism and checks.
#include "check_cxx.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include <jpeglib.h>

#include "trainer/jpeg_codec.hpp"
#include "trainer/jpeg_folder.hpp"
#include "trainer/jpeg_synth.hpp"

using namespace omru::train;
namespace fs = std::filesystem;

// A fresh directory under /tmp, removed by the destructor.
struct TempDir {
	std::string path;
	TempDir()
	{
		char tmpl[] = "/tmp/omru-jpeg-test-XXXXXX";
		ck_assert_ptr_nonnull(mkdtemp(tmpl));
		path = tmpl;
	}
	~TempDir() { fs::remove_all(path); }
	std::string operator/(const std::string &name) const { return path + "/" + name; }
};

static std::vector<uint8_t> file_bytes(const std::string &path)
{
	std::ifstream in(path, std::ios::binary);
	return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

static void put_bytes(const std::string &path, const std::vector<uint8_t> &b)
{
	fs::create_directories(fs::path(path).parent_path());
	std::ofstream out(path, std::ios::binary | std::ios::trunc);
	out.write(reinterpret_cast<const char *>(b.data()), static_cast<std::streamsize>(b.size()));
}

static RgbImage image(int w, int h)
{
	RgbImage img;
	img.width = w;
	img.height = h;
	img.pixels.resize(static_cast<size_t>(w) * h * 3);
	return img;
}

static RgbImage flat(int w, int h, uint8_t r, uint8_t g, uint8_t b)
{
	RgbImage img = image(w, h);
	for (size_t p = 0; p < img.pixels.size(); p += 3) {
		img.pixels[p] = r;
		img.pixels[p + 1] = g;
		img.pixels[p + 2] = b;
	}
	return img;
}

// Left half black, right half white.
static RgbImage halves(int w, int h)
{
	RgbImage img = image(w, h);
	for (int y = 0; y < h; y++)
		for (int x = w / 2; x < w; x++)
			for (int c = 0; c < 3; c++)
				img.pixels[(static_cast<size_t>(y) * w + x) * 3 + c] = 255;
	return img;
}

// A JPEG of another colour space, written with libjpeg directly (its
// default error handler exits, which is fine in a test).
static std::vector<uint8_t> encode_raw(const std::vector<uint8_t> &px, int w, int h,
				       int components, J_COLOR_SPACE space)
{
	jpeg_compress_struct c;
	jpeg_error_mgr err;
	c.err = jpeg_std_error(&err);
	jpeg_create_compress(&c);
	unsigned char *buf = nullptr;
	unsigned long size = 0;
	jpeg_mem_dest(&c, &buf, &size);
	c.image_width = w;
	c.image_height = h;
	c.input_components = components;
	c.in_color_space = space;
	jpeg_set_defaults(&c);
	jpeg_set_quality(&c, 95, TRUE);
	jpeg_start_compress(&c, TRUE);
	while (c.next_scanline < c.image_height) {
		JSAMPROW row = const_cast<uint8_t *>(px.data()) + c.next_scanline * w * components;
		jpeg_write_scanlines(&c, &row, 1);
	}
	jpeg_finish_compress(&c);
	jpeg_destroy_compress(&c);
	std::vector<uint8_t> out(buf, buf + size);
	free(buf);
	return out;
}

// The message of the runtime_error that decoding `bytes` as `name` throws.
static std::string decode_error(const std::vector<uint8_t> &bytes, const std::string &name)
{
	try {
		decode_jpeg(bytes.data(), bytes.size(), name);
	} catch (const std::runtime_error &e) {
		return e.what();
	}
	return "(no error)";
}

static bool contains(const std::string &s, const std::string &part)
{
	return s.find(part) != std::string::npos;
}

// The pixel value 0..255 of channel c that a normalised output holds.
static double pixel(float v, int c)
{
	return (v * kImageNetStd[c] + kImageNetMean[c]) * 255.0;
}

// A small synthetic set: 3 classes of 10 images, 40x32.
static void small_set(const std::string &dir)
{
	write_synthetic_jpeg_folder(dir, 30, 3, 40, 32, 90, 7);
}

// ---- codec ----------------------------------------------------------------

START_TEST(test_smooth_image_survives_an_encode_decode_round_trip)
{
	RgbImage img = image(64, 48);
	for (int y = 0; y < 48; y++)
		for (int x = 0; x < 64; x++) {
			uint8_t *p = &img.pixels[(y * 64 + x) * 3];
			p[0] = static_cast<uint8_t>(x * 4);
			p[1] = static_cast<uint8_t>(y * 5);
			p[2] = static_cast<uint8_t>(128 + 60 * std::sin(x * 0.2 + y * 0.1));
		}
	std::vector<uint8_t> jpeg = encode_jpeg(img, 95);
	ck_assert_int_eq(jpeg[0], 0xff); // SOI
	ck_assert_int_eq(jpeg[1], 0xd8);
	RgbImage back = decode_jpeg(jpeg.data(), jpeg.size(), "smooth");
	ck_assert_int_eq(back.width, 64);
	ck_assert_int_eq(back.height, 48);
	ck_assert_int_eq(back.pixels.size(), 64 * 48 * 3);
	double err = 0;
	for (size_t i = 0; i < img.pixels.size(); i++)
		err += std::abs(int(img.pixels[i]) - int(back.pixels[i]));
	err /= img.pixels.size();
	ck_assert_msg(err < 3, "mean absolute error %.2f", err);
}
END_TEST

START_TEST(test_encoder_checks_its_arguments)
{
	RgbImage img = flat(8, 8, 1, 2, 3);
	for (int q : { 0, 101 })
		try {
			encode_jpeg(img, q);
			ck_abort_msg("quality %d accepted", q);
		} catch (const std::invalid_argument &e) {
			ck_assert_msg(contains(e.what(), std::to_string(q)), "%s", e.what());
		}
	img.pixels.pop_back();
	try {
		encode_jpeg(img, 90);
		ck_abort_msg("short pixels accepted");
	} catch (const std::invalid_argument &) {
	}
}
END_TEST

START_TEST(test_grayscale_jpeg_decodes_to_equal_channels)
{
	std::vector<uint8_t> grey(32 * 24);
	for (size_t i = 0; i < grey.size(); i++)
		grey[i] = static_cast<uint8_t>(i * 3);
	std::vector<uint8_t> jpeg = encode_raw(grey, 32, 24, 1, JCS_GRAYSCALE);
	RgbImage img = decode_jpeg(jpeg.data(), jpeg.size(), "grey");
	ck_assert_int_eq(img.width, 32);
	ck_assert_int_eq(img.height, 24);
	double err = 0;
	for (size_t p = 0; p < grey.size(); p++) {
		ck_assert_int_eq(img.pixels[3 * p], img.pixels[3 * p + 1]);
		ck_assert_int_eq(img.pixels[3 * p], img.pixels[3 * p + 2]);
		err += std::abs(int(img.pixels[3 * p]) - int(grey[p]));
	}
	ck_assert_msg(err / grey.size() < 8, "mean absolute error %.2f", err / grey.size());
}
END_TEST

START_TEST(test_adobe_cmyk_jpeg_decodes_to_rgb)
{
	// Adobe's inverted CMYK, as Photoshop writes it: a byte is 255 - ink.
	// Red is no cyan, full magenta and yellow, no black.
	std::vector<uint8_t> cmyk;
	for (int p = 0; p < 16 * 16; p++)
		cmyk.insert(cmyk.end(), { 255, 0, 0, 255 });
	std::vector<uint8_t> jpeg = encode_raw(cmyk, 16, 16, 4, JCS_CMYK);
	RgbImage img = decode_jpeg(jpeg.data(), jpeg.size(), "cmyk");
	ck_assert_int_eq(img.width, 16);
	for (size_t p = 0; p < img.pixels.size(); p += 3) {
		ck_assert_int_ge(img.pixels[p], 250);
		ck_assert_int_le(img.pixels[p + 1], 5);
		ck_assert_int_le(img.pixels[p + 2], 5);
	}
}
END_TEST

// Noise, so that the entropy-coded data, not the tables, make most of the
// file: cutting it in half cuts the scan.
static RgbImage noise(int w, int h)
{
	RgbImage img = image(w, h);
	SplitMix rng(17);
	for (uint8_t &v : img.pixels)
		v = static_cast<uint8_t>(rng.below(256));
	return img;
}

START_TEST(test_truncated_jpeg_is_an_error_naming_it)
{
	std::vector<uint8_t> jpeg = encode_jpeg(noise(96, 64), 90);
	ck_assert_int_gt(jpeg.size(), 4000);
	jpeg.resize(jpeg.size() / 2);
	std::string m = decode_error(jpeg, "/data/train/n01/cut.JPEG");
	ck_assert_msg(m.rfind("/data/train/n01/cut.JPEG: cannot decode JPEG: ", 0) == 0, "%s",
		      m.c_str());
	ck_assert_msg(contains(m, "Premature end of JPEG file"), "%s", m.c_str());
}
END_TEST

START_TEST(test_empty_and_non_jpeg_data_are_errors_naming_them)
{
	std::string m = decode_error({}, "empty.jpg");
	ck_assert_msg(m.rfind("empty.jpg: cannot decode JPEG: ", 0) == 0, "%s", m.c_str());
	std::string text = "just some text, not a JPEG\n";
	m = decode_error(std::vector<uint8_t>(text.begin(), text.end()), "text.jpg");
	ck_assert_string_eq(m, "text.jpg: cannot decode JPEG: Not a JPEG file: starts with 0x6a 0x75");
	// A header only: SOI, then nothing.
	m = decode_error({ 0xff, 0xd8 }, "soi.jpg");
	ck_assert_msg(m.rfind("soi.jpg: cannot decode JPEG: ", 0) == 0, "%s", m.c_str());
}
END_TEST

START_TEST(test_harmless_warning_is_not_an_error)
{
	// Bytes between the last scan and EOI: libjpeg warns "extraneous
	// bytes before marker 0xd9" and the image is whole (PIL loads it too).
	std::vector<uint8_t> jpeg = encode_jpeg(halves(32, 32), 90);
	RgbImage good = decode_jpeg(jpeg.data(), jpeg.size(), "good");
	jpeg.insert(jpeg.end() - 2, { 0x12, 0x34, 0x56 });
	RgbImage img = decode_jpeg(jpeg.data(), jpeg.size(), "extra");
	ck_assert(img.pixels == good.pixels);
}
END_TEST

START_TEST(test_read_file_bytes_names_a_missing_file)
{
	TempDir dir;
	put_bytes(dir / "f", { 1, 2, 3 });
	ck_assert(read_file_bytes(dir / "f") == std::vector<uint8_t>({ 1, 2, 3 }));
	put_bytes(dir / "e", {});
	ck_assert(read_file_bytes(dir / "e").empty());
	try {
		read_file_bytes(dir / "missing.jpg");
		ck_abort_msg("no error");
	} catch (const std::runtime_error &e) {
		ck_assert_string_eq(e.what(), dir / "missing.jpg: cannot open: No such file or directory");
	}
	try {
		read_file_bytes(dir.path);
		ck_abort_msg("no error for a directory");
	} catch (const std::runtime_error &e) {
		ck_assert_string_eq(e.what(), dir.path + ": not a regular file");
	}
}
END_TEST

// ---- the folder -------------------------------------------------------------

START_TEST(test_folder_lists_classes_and_images_in_name_order)
{
	TempDir dir;
	std::vector<uint8_t> jpeg = encode_jpeg(flat(16, 16, 9, 9, 9), 90);
	// Made out of order; ImageNet's upper-case extension counts.
	put_bytes(dir / "zebra/b.jpg", jpeg);
	put_bytes(dir / "zebra/a.JPEG", jpeg);
	put_bytes(dir / "apple/x.jpeg", jpeg);
	put_bytes(dir / "apple/W.Jpg", jpeg);
	put_bytes(dir / "mango/m.jpg", jpeg);
	// Ignored: other extensions, hidden files and directories, nested
	// directories, files at the top.
	put_bytes(dir / "apple/notes.txt", { 1 });
	put_bytes(dir / "apple/y.png", { 1 });
	put_bytes(dir / "apple/jpg", { 1 });
	put_bytes(dir / "apple/.hidden.jpg", jpeg);
	put_bytes(dir / "apple/deeper/d.jpg", jpeg);
	put_bytes(dir / ".cache/c.jpg", jpeg);
	put_bytes(dir / "top.jpg", jpeg);
	fs::create_directories(dir / "apple/dir.jpg");

	JpegFolder f(dir.path, 32);
	ck_assert_int_eq(f.size(), 5);
	ck_assert_int_eq(f.classes(), 3);
	ck_assert_int_eq(f.side(), 32);
	ck_assert(f.class_names() == std::vector<std::string>({ "apple", "mango", "zebra" }));
	const char *want[] = { "apple/W.Jpg", "apple/x.jpeg", "mango/m.jpg", "zebra/a.JPEG",
			       "zebra/b.jpg" };
	const int labels[] = { 0, 0, 1, 2, 2 };
	for (size_t i = 0; i < 5; i++) {
		ck_assert_string_eq(f.path(i), dir / want[i]);
		ck_assert_int_eq(f.label(i), labels[i]);
	}
	ck_assert_string_eq(f.describe(),
			    "JPEG folder " + dir.path + ": 5 images, 3 classes, side 32");
}
END_TEST

START_TEST(test_folder_keeps_a_class_without_images)
{
	// As ImageFolder does: the labels of a train and a val folder with the
	// same class directories agree even when one class is empty.
	TempDir dir;
	put_bytes(dir / "b/x.jpg", encode_jpeg(flat(8, 8, 1, 1, 1), 90));
	fs::create_directories(dir / "a");
	JpegFolder f(dir.path, 8);
	ck_assert_int_eq(f.classes(), 2);
	ck_assert_int_eq(f.size(), 1);
	ck_assert_int_eq(f.label(0), 1);
}
END_TEST

// The message of the runtime_error that opening `dir` throws.
static std::string folder_error(const std::string &dir)
{
	try {
		JpegFolder f(dir, 32);
	} catch (const std::runtime_error &e) {
		return e.what();
	}
	return "(no error)";
}

START_TEST(test_folder_errors_name_the_directory)
{
	TempDir dir;
	std::string m = folder_error(dir / "missing");
	ck_assert_msg(m.rfind(dir / "missing: cannot list", 0) == 0, "%s", m.c_str());
	m = folder_error(dir.path);
	ck_assert_msg(m.rfind(dir.path + ": no class directories", 0) == 0, "%s", m.c_str());
	put_bytes(dir / "data_batch_1.bin", { 1, 2 });
	m = folder_error(dir.path);
	ck_assert_msg(m.rfind(dir.path + ": no class directories", 0) == 0, "%s", m.c_str());
	put_bytes(dir / "cls/readme.txt", { 1 });
	m = folder_error(dir.path);
	ck_assert_string_eq(m, dir.path + ": no .jpg or .jpeg files in its 1 class directories");
	m = folder_error(dir / "data_batch_1.bin");
	ck_assert_msg(m.rfind(dir / "data_batch_1.bin: cannot list", 0) == 0, "%s", m.c_str());
}
END_TEST

START_TEST(test_folder_rejects_a_bad_side)
{
	TempDir dir;
	small_set(dir.path);
	for (int side : { 7, 0, -1, 1025 })
		try {
			JpegFolder f(dir.path, side);
			ck_abort_msg("side %d accepted", side);
		} catch (const std::invalid_argument &e) {
			ck_assert_msg(contains(e.what(), " " + std::to_string(side) + " is not 8..1024"),
				      "%s", e.what());
		}
	JpegFolder(dir.path, 8);
	JpegFolder(dir.path, 1024);
}
END_TEST

START_TEST(test_looks_like_tells_a_jpeg_folder_from_others)
{
	TempDir dir;
	small_set(dir / "jpeg");
	ck_assert(JpegFolder::looks_like(dir / "jpeg"));
	ck_assert(!JpegFolder::looks_like(dir / "missing"));
	// A CIFAR-10 binary directory.
	for (const char *f : { "data_batch_1.bin", "data_batch_2.bin", "test_batch.bin" })
		put_bytes(dir / "cifar/" + f, { 1 });
	ck_assert(!JpegFolder::looks_like(dir / "cifar"));
	ck_assert(!JpegFolder::looks_like(dir / "cifar/data_batch_1.bin"));
	// Sub-directories without JPEGs, or only hidden ones with them.
	put_bytes(dir / "other/a/x.png", { 1 });
	put_bytes(dir / "other/.b/x.jpg", { 1 });
	put_bytes(dir / "other/x.jpg", { 1 });
	ck_assert(!JpegFolder::looks_like(dir / "other"));
	put_bytes(dir / "other/c/y.JPEG", { 1 });
	ck_assert(JpegFolder::looks_like(dir / "other"));
}
END_TEST

// ---- load -------------------------------------------------------------------

START_TEST(test_load_writes_exactly_3_side_side_finite_values)
{
	TempDir dir;
	small_set(dir.path);
	JpegFolder f(dir.path, 24);
	const size_t n = 3 * 24 * 24;
	const float guard = -12345.0f;
	for (bool augment : { false, true })
		for (size_t i = 0; i < f.size(); i += 7) {
			std::vector<float> out(n + 16, guard);
			SplitMix rng(i);
			f.load(i, augment, rng, out.data());
			for (size_t k = 0; k < n; k++)
				ck_assert_msg(std::isfinite(out[k]) && std::fabs(out[k]) < 3,
					      "value %zu: %g", k, out[k]);
			for (size_t k = n; k < out.size(); k++)
				ck_assert(out[k] == guard);
		}
}
END_TEST

START_TEST(test_evaluation_load_is_deterministic_and_draws_nothing)
{
	TempDir dir;
	small_set(dir.path);
	JpegFolder f(dir.path, 16);
	std::vector<float> a(3 * 256), b(3 * 256);
	SplitMix r1(1), r2(99);
	f.load(4, false, r1, a.data());
	f.load(4, false, r2, b.data());
	ck_assert(a == b);
	ck_assert(r1.s == SplitMix(1).s);
}
END_TEST

START_TEST(test_augmented_load_depends_on_the_stream_alone)
{
	TempDir dir;
	write_synthetic_jpeg_folder(dir.path, 4, 2, 160, 120, 90, 3);
	JpegFolder f(dir.path, 32);
	std::vector<float> a(3 * 1024), b(3 * 1024);
	SplitMix r1(5), r2(5);
	f.load(1, true, r1, a.data());
	f.load(1, true, r2, b.data());
	ck_assert(a == b);
	ck_assert(r1.s == r2.s);
	int differ = 0;
	for (uint64_t seed = 6; seed < 10; seed++) {
		SplitMix r(seed);
		f.load(1, true, r, b.data());
		differ += a != b;
	}
	ck_assert_int_eq(differ, 4);
}
END_TEST

START_TEST(test_augmented_load_is_crop_then_flip_then_resize)
{
	// load() = decode, random_resized_crop_box, one next() for the flip,
	// resize_normalise: the documented order of draws.
	TempDir dir;
	write_synthetic_jpeg_folder(dir.path, 2, 1, 100, 60, 90, 3);
	JpegFolder f(dir.path, 20);
	std::vector<uint8_t> bytes = read_file_bytes(f.path(1));
	RgbImage img = decode_jpeg(bytes.data(), bytes.size(), f.path(1));
	int flips = 0;
	for (uint64_t seed = 0; seed < 8; seed++) {
		std::vector<float> got(3 * 400), want(3 * 400);
		SplitMix r1(seed), r2(seed);
		f.load(1, true, r1, got.data());
		CropBox box = random_resized_crop_box(img.width, img.height, r2);
		bool flip = (r2.next() >> 63) != 0;
		flips += flip;
		resize_normalise(img, box, 20, flip, want.data());
		ck_assert(got == want);
		ck_assert(r1.s == r2.s);
	}
	ck_assert(flips > 0 && flips < 8);
}
END_TEST

START_TEST(test_flat_image_loads_flat_at_its_normalised_colour)
{
	TempDir dir;
	const uint8_t rgb[3] = { 200, 100, 50 };
	put_bytes(dir / "c/flat.jpg", encode_jpeg(flat(120, 90, rgb[0], rgb[1], rgb[2]), 100));
	JpegFolder f(dir.path, 32);
	std::vector<float> out(3 * 1024);
	for (uint64_t seed = 0; seed < 6; seed++) {
		SplitMix rng(seed);
		f.load(0, seed > 0, rng, out.data());
		for (int c = 0; c < 3; c++) {
			float want = (rgb[c] / 255.0f - kImageNetMean[c]) / kImageNetStd[c];
			for (int p = 0; p < 1024; p++)
				ck_assert_msg(std::fabs(out[c * 1024 + p] - want) < 0.04f,
					      "seed %d channel %d pixel %d: %g, want %g", int(seed), c,
					      p, out[c * 1024 + p], want);
		}
	}
}
END_TEST

START_TEST(test_evaluation_crop_keeps_left_left_and_flip_mirrors)
{
	TempDir dir;
	RgbImage img = halves(64, 48);
	put_bytes(dir / "c/halves.jpg", encode_jpeg(img, 95));
	JpegFolder f(dir.path, 16);
	std::vector<float> out(3 * 256);
	SplitMix rng(1);
	f.load(0, false, rng, out.data());
	// The centre crop is 42x42 from x = 11: black up to crop column 21 of
	// 42, output column 8 of 16.
	for (int c = 0; c < 3; c++)
		for (int y = 0; y < 16; y++)
			for (int x = 0; x < 16; x++) {
				double v = pixel(out[c * 256 + y * 16 + x], c);
				if (x < 7)
					ck_assert_msg(v < 20, "(%d, %d): %.1f", x, y, v);
				if (x > 8)
					ck_assert_msg(v > 235, "(%d, %d): %.1f", x, y, v);
			}
	// Flipped, the same columns swap.
	resize_normalise(img, centre_crop_box(64, 48), 16, true, out.data());
	for (int y = 0; y < 16; y++)
		for (int x = 0; x < 16; x++) {
			double v = pixel(out[y * 16 + x], 0);
			ck_assert(std::fabs(pixel(out[256 + y * 16 + x], 1) - v) < 1e-3); // grey
			ck_assert_msg(x < 7 ? v > 254.9 : x > 8 ? v < 0.1 : true, "(%d, %d): %.1f",
				      x, y, v);
		}
}
END_TEST

START_TEST(test_damaged_files_in_a_folder_fail_load_naming_them)
{
	TempDir dir;
	std::vector<uint8_t> jpeg = encode_jpeg(noise(96, 64), 90);
	put_bytes(dir / "c/a_good.jpg", jpeg);
	put_bytes(dir / "c/b_cut.jpg", std::vector<uint8_t>(jpeg.begin(), jpeg.begin() + jpeg.size() / 2));
	std::string text = "not a JPEG at all\n";
	put_bytes(dir / "c/c_text.jpg", std::vector<uint8_t>(text.begin(), text.end()));
	put_bytes(dir / "c/d_empty.jpg", {});
	JpegFolder f(dir.path, 16);
	ck_assert_int_eq(f.size(), 4);
	std::vector<float> out(3 * 256);
	SplitMix rng(1);
	f.load(0, true, rng, out.data());
	const char *why[] = { "Premature end of JPEG file", "Not a JPEG file", "Empty input file" };
	for (size_t i = 1; i < 4; i++)
		for (bool augment : { false, true })
			try {
				f.load(i, augment, rng, out.data());
				ck_abort_msg("no error for %s", f.path(i).c_str());
			} catch (const std::runtime_error &e) {
				std::string m = e.what();
				ck_assert_msg(m.rfind(f.path(i) + ": cannot decode JPEG: ", 0) == 0 &&
						      contains(m, why[i - 1]),
					      "%s", m.c_str());
			}
	fs::remove(dir / "c/a_good.jpg");
	try {
		f.load(0, false, rng, out.data());
		ck_abort_msg("no error for a removed file");
	} catch (const std::runtime_error &e) {
		ck_assert_string_eq(e.what(), dir / "c/a_good.jpg: cannot open: No such file or directory");
	}
}
END_TEST

// ---- the transforms ---------------------------------------------------------

START_TEST(test_growing_is_bilinear_with_half_pixel_centres)
{
	// 2 -> 4 columns: centres at 0.25, 0.75, 1.25, 1.75 of the input:
	// 0, 0.75 x 0 + 0.25 x 255, the mirror, 255 (the edges clamp), as
	// torch's interpolate(bilinear, align_corners=False) gives.
	RgbImage img = image(2, 2);
	for (int y = 0; y < 2; y++)
		for (int c = 0; c < 3; c++)
			img.pixels[(y * 2 + 1) * 3 + c] = 255;
	std::vector<float> out(3 * 16);
	resize_normalise(img, { 0, 0, 2, 2 }, 4, false, out.data());
	const double want[4] = { 0, 63.75, 191.25, 255 };
	for (int c = 0; c < 3; c++)
		for (int y = 0; y < 4; y++)
			for (int x = 0; x < 4; x++)
				ck_assert_msg(std::fabs(pixel(out[c * 16 + y * 4 + x], c) - want[x]) < 1e-3,
					      "(%d, %d): %f", x, y, pixel(out[c * 16 + y * 4 + x], c));
}
END_TEST

START_TEST(test_shrinking_averages_instead_of_aliasing)
{
	// One white column in four, shrunk 4x: PIL's widened filter gives the
	// mean (63.75) inside; plain bilinear would sample two black columns.
	RgbImage img = image(16, 4);
	for (int y = 0; y < 4; y++)
		for (int x = 0; x < 16; x += 4)
			for (int c = 0; c < 3; c++)
				img.pixels[(y * 16 + x) * 3 + c] = 255;
	std::vector<float> out(3 * 16);
	resize_normalise(img, { 0, 0, 16, 4 }, 4, false, out.data());
	for (int y = 0; y < 4; y++)
		for (int x = 1; x < 3; x++)
			ck_assert_msg(std::fabs(pixel(out[y * 4 + x], 0) - 63.75) < 1e-3, "(%d, %d): %f",
				      x, y, pixel(out[y * 4 + x], 0));
}
END_TEST

START_TEST(test_resize_reads_only_the_box)
{
	// A white box on black, resized: all white, whatever is around it.
	RgbImage img = image(30, 20);
	for (int y = 5; y < 12; y++)
		for (int x = 10; x < 19; x++)
			for (int c = 0; c < 3; c++)
				img.pixels[(y * 30 + x) * 3 + c] = 255;
	std::vector<float> out(3 * 64);
	resize_normalise(img, { 10, 5, 9, 7 }, 8, false, out.data());
	for (int c = 0; c < 3; c++)
		for (int p = 0; p < 64; p++)
			ck_assert(std::fabs(pixel(out[c * 64 + p], c) - 255) < 1e-3);
	try {
		resize_normalise(img, { 25, 0, 6, 20 }, 8, false, out.data());
		ck_abort_msg("a box outside the image accepted");
	} catch (const std::invalid_argument &) {
	}
}
END_TEST

START_TEST(test_random_crop_boxes_follow_torchvision_bounds)
{
	SplitMix rng(11);
	const int W = 500, H = 375;
	double min_frac = 1, max_frac = 0;
	std::set<int> xs, ys;
	for (int i = 0; i < 2000; i++) {
		CropBox b = random_resized_crop_box(W, H, rng);
		ck_assert(b.x >= 0 && b.y >= 0 && b.w > 0 && b.h > 0);
		ck_assert(b.x + b.w <= W && b.y + b.h <= H);
		double frac = double(b.w) * b.h / (W * H), ratio = double(b.w) / b.h;
		// Rounding w and h moves both a little.
		ck_assert_msg(frac > 0.08 * 0.98 && frac <= 1, "area fraction %f", frac);
		ck_assert_msg(ratio > 0.75 * 0.98 && ratio < 4.0 / 3 * 1.02, "ratio %f", ratio);
		min_frac = std::min(min_frac, frac);
		max_frac = std::max(max_frac, frac);
		xs.insert(b.x);
		ys.insert(b.y);
	}
	ck_assert_msg(min_frac < 0.1 && max_frac > 0.9, "fractions %f..%f", min_frac, max_frac);
	ck_assert(xs.size() > 100 && ys.size() > 100);
}
END_TEST

START_TEST(test_random_crop_falls_back_to_the_clamped_centre)
{
	// No box of 8% of the area fits a 10-pixel-high strip with a ratio
	// of at most 4/3: the centre, 4/3 as wide as high.
	SplitMix rng(1);
	CropBox b = random_resized_crop_box(1000, 10, rng);
	ck_assert_int_eq(b.w, 13);
	ck_assert_int_eq(b.h, 10);
	ck_assert_int_eq(b.x, 493);
	ck_assert_int_eq(b.y, 0);
	b = random_resized_crop_box(10, 1000, rng);
	ck_assert_int_eq(b.w, 10);
	ck_assert_int_eq(b.h, 13);
	ck_assert_int_eq(b.x, 0);
	ck_assert_int_eq(b.y, 493);
	// A 1x1 image: the whole of it.
	b = random_resized_crop_box(1, 1, rng);
	ck_assert(b.x == 0 && b.y == 0 && b.w == 1 && b.h == 1);
}
END_TEST

START_TEST(test_centre_crop_is_seven_eighths_of_the_short_side)
{
	CropBox b = centre_crop_box(500, 375); // 328.125 -> 328
	ck_assert(b.w == 328 && b.h == 328 && b.x == 86 && b.y == 24);
	b = centre_crop_box(256, 256);
	ck_assert(b.w == 224 && b.h == 224 && b.x == 16 && b.y == 16);
	b = centre_crop_box(1, 1);
	ck_assert(b.w == 1 && b.h == 1 && b.x == 0 && b.y == 0);
}
END_TEST

// ---- the synthetic writer ----------------------------------------------------

static std::vector<std::string> files_under(const std::string &dir)
{
	std::vector<std::string> out;
	for (const auto &e : fs::recursive_directory_iterator(dir))
		if (e.is_regular_file())
			out.push_back(fs::relative(e.path(), dir).string());
	std::sort(out.begin(), out.end());
	return out;
}

START_TEST(test_synthetic_folder_is_deterministic_per_seed)
{
	TempDir dir;
	write_synthetic_jpeg_folder(dir / "a", 12, 3, 48, 40, 90, 5);
	write_synthetic_jpeg_folder(dir / "b", 12, 3, 48, 40, 90, 5);
	write_synthetic_jpeg_folder(dir / "c", 12, 3, 48, 40, 90, 6);
	std::vector<std::string> names = files_under(dir / "a");
	ck_assert_int_eq(names.size(), 12);
	ck_assert(names == files_under(dir / "b"));
	int same_c = 0;
	for (const std::string &n : names) {
		ck_assert(file_bytes(dir / "a/" + n) == file_bytes(dir / "b/" + n));
		same_c += file_bytes(dir / "a/" + n) == file_bytes(dir / "c/" + n);
	}
	ck_assert_int_eq(same_c, 0);
}
END_TEST

START_TEST(test_synthetic_folder_layout_and_balance)
{
	TempDir dir;
	write_synthetic_jpeg_folder(dir / "s", 25, 4, 33, 17, 80, 1);
	std::vector<std::string> names = files_under(dir / "s");
	ck_assert_int_eq(names.size(), 25); // no temporaries left
	ck_assert_string_eq(names[0], "class_000/img_000000.jpg");
	ck_assert_string_eq(names[1], "class_000/img_000004.jpg");
	ck_assert_string_eq(names.back(), "class_003/img_000023.jpg");
	JpegFolder f(dir / "s", 16);
	ck_assert_int_eq(f.classes(), 4);
	int count[4] = {};
	for (size_t i = 0; i < f.size(); i++)
		count[f.label(i)]++;
	ck_assert(count[0] == 7 && count[1] == 6 && count[2] == 6 && count[3] == 6);
	std::vector<uint8_t> b = read_file_bytes(f.path(3));
	RgbImage img = decode_jpeg(b.data(), b.size(), f.path(3));
	ck_assert(img.width == 33 && img.height == 17);
	// Fewer images than classes: every class directory is still made.
	write_synthetic_jpeg_folder(dir / "few", 2, 5, 16, 16, 90, 1);
	ck_assert_int_eq(JpegFolder(dir / "few", 16).classes(), 5);
	// Writing again over a set replaces its files.
	write_synthetic_jpeg_folder(dir / "s", 25, 4, 33, 17, 80, 2);
	ck_assert_int_eq(files_under(dir / "s").size(), 25);
}
END_TEST

START_TEST(test_synthetic_images_are_noisy_and_classes_differ_in_colour)
{
	TempDir dir;
	write_synthetic_jpeg_folder(dir.path, 40, 4, 64, 48, 90, 9);
	JpegFolder f(dir.path, 16);
	double mean[4][3] = {};
	for (size_t i = 0; i < f.size(); i++) {
		std::vector<uint8_t> b = read_file_bytes(f.path(i));
		// Not flat: at least 0.3 bytes a pixel, as photographs.
		ck_assert_msg(b.size() > 0.3 * 64 * 48, "%zu bytes", b.size());
		RgbImage img = decode_jpeg(b.data(), b.size(), f.path(i));
		for (size_t p = 0; p < img.pixels.size(); p++)
			mean[f.label(i)][p % 3] += img.pixels[p] / (10.0 * 64 * 48);
	}
	for (int a = 0; a < 4; a++)
		for (int b = a + 1; b < 4; b++) {
			double d = std::hypot(mean[a][0] - mean[b][0], mean[a][1] - mean[b][1],
					      mean[a][2] - mean[b][2]);
			ck_assert_msg(d > 30, "classes %d and %d: mean colours %.1f apart", a, b, d);
		}
}
END_TEST

START_TEST(test_synthetic_writer_checks_its_arguments)
{
	TempDir dir;
	struct Bad {
		size_t images;
		int classes, w, h, q;
		const char *says;
	} bad[] = {
		{ 0, 10, 32, 32, 90, "images 0 " },	  { 10, 0, 32, 32, 90, "classes 0 " },
		{ 10, 1001, 32, 32, 90, "classes 1001 " }, { 10, 10, 7, 32, 90, "width 7 " },
		{ 10, 10, 4097, 32, 90, "width 4097 " },   { 10, 10, 32, 7, 90, "height 7 " },
		{ 10, 10, 32, 32, 0, "quality 0 " },	  { 10, 10, 32, 32, 101, "quality 101 " },
	};
	for (const Bad &b : bad)
		try {
			write_synthetic_jpeg_folder(dir / "x", b.images, b.classes, b.w, b.h, b.q, 1);
			ck_abort_msg("accepted: %s", b.says);
		} catch (const std::invalid_argument &e) {
			ck_assert_msg(contains(e.what(), b.says), "%s", e.what());
		}
	ck_assert(!fs::exists(dir / "x"));
}
END_TEST

START_TEST(test_synthetic_writer_names_an_unwritable_directory)
{
	TempDir dir;
	put_bytes(dir / "file", { 1 });
	try {
		write_synthetic_jpeg_folder(dir / "file/sub", 2, 1, 16, 16, 90, 1);
		ck_abort_msg("no error");
	} catch (const std::runtime_error &e) {
		ck_assert_msg(contains(e.what(), dir / "file/sub"), "%s", e.what());
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("jpeg_folder");
	TCase *tc = tcase_create("jpeg");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_smooth_image_survives_an_encode_decode_round_trip);
	tcase_add_test(tc, test_encoder_checks_its_arguments);
	tcase_add_test(tc, test_grayscale_jpeg_decodes_to_equal_channels);
	tcase_add_test(tc, test_adobe_cmyk_jpeg_decodes_to_rgb);
	tcase_add_test(tc, test_truncated_jpeg_is_an_error_naming_it);
	tcase_add_test(tc, test_empty_and_non_jpeg_data_are_errors_naming_them);
	tcase_add_test(tc, test_harmless_warning_is_not_an_error);
	tcase_add_test(tc, test_read_file_bytes_names_a_missing_file);
	tcase_add_test(tc, test_folder_lists_classes_and_images_in_name_order);
	tcase_add_test(tc, test_folder_keeps_a_class_without_images);
	tcase_add_test(tc, test_folder_errors_name_the_directory);
	tcase_add_test(tc, test_folder_rejects_a_bad_side);
	tcase_add_test(tc, test_looks_like_tells_a_jpeg_folder_from_others);
	tcase_add_test(tc, test_load_writes_exactly_3_side_side_finite_values);
	tcase_add_test(tc, test_evaluation_load_is_deterministic_and_draws_nothing);
	tcase_add_test(tc, test_augmented_load_depends_on_the_stream_alone);
	tcase_add_test(tc, test_augmented_load_is_crop_then_flip_then_resize);
	tcase_add_test(tc, test_flat_image_loads_flat_at_its_normalised_colour);
	tcase_add_test(tc, test_evaluation_crop_keeps_left_left_and_flip_mirrors);
	tcase_add_test(tc, test_damaged_files_in_a_folder_fail_load_naming_them);
	tcase_add_test(tc, test_growing_is_bilinear_with_half_pixel_centres);
	tcase_add_test(tc, test_shrinking_averages_instead_of_aliasing);
	tcase_add_test(tc, test_resize_reads_only_the_box);
	tcase_add_test(tc, test_random_crop_boxes_follow_torchvision_bounds);
	tcase_add_test(tc, test_random_crop_falls_back_to_the_clamped_centre);
	tcase_add_test(tc, test_centre_crop_is_seven_eighths_of_the_short_side);
	tcase_add_test(tc, test_synthetic_folder_is_deterministic_per_seed);
	tcase_add_test(tc, test_synthetic_folder_layout_and_balance);
	tcase_add_test(tc, test_synthetic_images_are_noisy_and_classes_differ_in_colour);
	tcase_add_test(tc, test_synthetic_writer_checks_its_arguments);
	tcase_add_test(tc, test_synthetic_writer_names_an_unwritable_directory);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
