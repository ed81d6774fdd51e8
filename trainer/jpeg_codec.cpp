// jpeg_codec.cpp - see jpeg_codec.hpp.  libjpeg reports errors through a
// callback that must not return; the classic answer, used here, is a
// longjmp back to a setjmp in the function that called libjpeg.  A longjmp
// skips destructors, so every frame it can cross holds only plain C data:
// the libjpeg calls live in small functions whose locals are POD and whose
// state is one POD struct, and the C++ caller (which owns the vectors and
// the jpeg_destroy_*) only sees a false return and the message.
#include "trainer/jpeg_codec.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <csetjmp>
#include <cstdio> // jpeglib.h uses FILE without including stdio.h
#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include <jpeglib.h>
#include <jerror.h>

namespace {

// libjpeg's error manager plus where to jump and why.  `pub` comes first:
// libjpeg holds a jpeg_error_mgr * to it.
struct ErrorManager {
	jpeg_error_mgr pub;
	jmp_buf jump;
	char message[JMSG_LENGTH_MAX];
};

// Warnings that mean pixels were lost: libjpeg fills what it could not
// decode with grey (or garbage) and carries on.  A truncated file, the
// usual damage of a copy that ran out of space, gives JWRN_JPEG_EOF first.
// Other warnings (extraneous bytes before a marker, an unknown JFIF or
// Adobe version, odd SOS parameters, a bad ICC marker) leave the image
// whole: a few ImageNet files have them, and PIL, hence torchvision, loads
// those files without complaint.
bool loses_pixels(int code)
{
	return code == JWRN_JPEG_EOF || code == JWRN_HIT_MARKER ||
	       code == JWRN_HUFF_BAD_CODE || code == JWRN_MUST_RESYNC;
}

// A growing malloc'd buffer as libjpeg's destination.  Not jpeg_mem_dest:
// its buffer leaks when an error (out of memory) ends a compression after
// it grew, and ours is freed by the caller on every path.
struct MemoryDestination {
	jpeg_destination_mgr pub; // first: libjpeg holds a pointer to it
	unsigned char *buf;
	size_t capacity, length;
};

} // namespace

extern "C" {

// error_exit: never returns; jumps back to the caller's setjmp.
static void omru_jpeg_error_exit(j_common_ptr cinfo)
{
	ErrorManager *err = reinterpret_cast<ErrorManager *>(cinfo->err);
	(*cinfo->err->format_message)(cinfo, err->message);
	longjmp(err->jump, 1);
}

// emit_message: level -1 is a warning, 0 and up are trace messages.  The
// default prints warnings to stderr; a lossy one is an error here, at
// once, before libjpeg spends time decoding the rest as grey.
static void omru_jpeg_emit_message(j_common_ptr cinfo, int level)
{
	if (level >= 0)
		return;
	cinfo->err->num_warnings++;
	if (loses_pixels(cinfo->err->msg_code))
		omru_jpeg_error_exit(cinfo);
}

// init_destination: a first 64 KiB.
static void omru_dest_init(j_compress_ptr cinfo)
{
	MemoryDestination *d = reinterpret_cast<MemoryDestination *>(cinfo->dest);
	d->capacity = 65536;
	d->buf = static_cast<unsigned char *>(std::malloc(d->capacity));
	if (!d->buf)
		ERREXIT1(cinfo, JERR_OUT_OF_MEMORY, 1);
	d->pub.next_output_byte = d->buf;
	d->pub.free_in_buffer = d->capacity;
}

// empty_output_buffer: called when the buffer is full (free_in_buffer is then meaningless: the
// whole buffer is data).
static boolean omru_dest_grow(j_compress_ptr cinfo)
{
	MemoryDestination *d = reinterpret_cast<MemoryDestination *>(cinfo->dest);
	unsigned char *bigger = static_cast<unsigned char *>(
		std::realloc(d->buf, 2 * d->capacity));
	if (!bigger)
		ERREXIT1(cinfo, JERR_OUT_OF_MEMORY, 2);
	d->buf = bigger;
	d->pub.next_output_byte = bigger + d->capacity;
	d->pub.free_in_buffer = d->capacity;
	d->capacity *= 2;
	return TRUE;
}

// term_destination: how much of the buffer is data.
static void omru_dest_term(j_compress_ptr cinfo)
{
	MemoryDestination *d = reinterpret_cast<MemoryDestination *>(cinfo->dest);
	d->length = d->capacity - d->pub.free_in_buffer;
}

} // extern "C"

namespace omru {
namespace train {
namespace {

// Images larger than this are refused before libjpeg allocates for them: a
// damaged header can claim 65500 x 65500 pixels (12 GB of RGB).
constexpr unsigned long kMaxPixels = 1UL << 27; // 134 M, 400 MB of RGB

void init_errors(ErrorManager *err)
{
	jpeg_std_error(&err->pub);
	err->pub.error_exit = omru_jpeg_error_exit;
	err->pub.emit_message = omru_jpeg_emit_message;
	err->message[0] = '\0';
}

// Everything a decode touches between setjmp and longjmp: plain C data.
struct Decoder {
	jpeg_decompress_struct cinfo;
	ErrorManager err;
};

// Phase 1: create the decompressor and read the header.  RET false (with
// d->err.message) on an error.
bool read_header(Decoder *d, const uint8_t *data, size_t size)
{
	init_errors(&d->err);
	d->cinfo.err = &d->err.pub;
	if (setjmp(d->err.jump))
		return false;
	jpeg_create_decompress(&d->cinfo);
	jpeg_mem_src(&d->cinfo, data, static_cast<unsigned long>(size));
	jpeg_read_header(&d->cinfo, TRUE);
	return true;
}

// Phase 2: decode into `out` (3 x width x height bytes).  CMYK and YCCK
// files come out as CMYK, which libjpeg will not convert to RGB: each row
// goes through `row` (4 x width bytes) and is converted here.  RET false
// (with d->err.message) on an error.
bool decode_pixels(Decoder *d, uint8_t *out, uint8_t *row)
{
	if (setjmp(d->err.jump))
		return false;
	jpeg_decompress_struct *c = &d->cinfo;
	bool cmyk = c->jpeg_color_space == JCS_CMYK || c->jpeg_color_space == JCS_YCCK;
	c->out_color_space = cmyk ? JCS_CMYK : JCS_RGB;
	jpeg_start_decompress(c);
	size_t w = c->output_width;
	while (c->output_scanline < c->output_height) {
		uint8_t *rgb = out + static_cast<size_t>(c->output_scanline) * w * 3;
		JSAMPROW dst = cmyk ? row : rgb;
		jpeg_read_scanlines(c, &dst, 1);
		if (!cmyk)
			continue;
		// Adobe's files (Photoshop's, nearly all CMYK JPEGs) store
		// inverted ink, so a byte is the light left: R = C' K' / 255.
		// Without the Adobe marker the bytes are ink.  PIL does the same.
		for (size_t x = 0; x < w; x++) {
			unsigned v[4];
			for (int k = 0; k < 4; k++)
				v[k] = c->saw_Adobe_marker ? row[4 * x + k]
							   : 255u - row[4 * x + k];
			for (int k = 0; k < 3; k++)
				rgb[3 * x + k] = static_cast<uint8_t>(
					(v[k] * v[3] + 127) / 255);
		}
	}
	jpeg_finish_decompress(c);
	return true;
}

struct Encoder {
	jpeg_compress_struct cinfo;
	ErrorManager err;
	MemoryDestination dest;
};

// RET false (with e->err.message) on an error; e->dest.buf may be set
// either way and is the caller's to free.
bool compress(Encoder *e, const uint8_t *rgb, int width, int height, int quality)
{
	init_errors(&e->err);
	e->cinfo.err = &e->err.pub;
	if (setjmp(e->err.jump))
		return false;
	jpeg_create_compress(&e->cinfo);
	e->dest.pub.init_destination = omru_dest_init;
	e->dest.pub.empty_output_buffer = omru_dest_grow;
	e->dest.pub.term_destination = omru_dest_term;
	e->cinfo.dest = &e->dest.pub;
	e->cinfo.image_width = static_cast<JDIMENSION>(width);
	e->cinfo.image_height = static_cast<JDIMENSION>(height);
	e->cinfo.input_components = 3;
	e->cinfo.in_color_space = JCS_RGB;
	jpeg_set_defaults(&e->cinfo);
	jpeg_set_quality(&e->cinfo, quality, TRUE);
	jpeg_start_compress(&e->cinfo, TRUE);
	size_t stride = static_cast<size_t>(width) * 3;
	while (e->cinfo.next_scanline < e->cinfo.image_height) {
		// libjpeg's API is not const-correct; it only reads the row.
		JSAMPROW row = const_cast<uint8_t *>(rgb) + e->cinfo.next_scanline * stride;
		jpeg_write_scanlines(&e->cinfo, &row, 1);
	}
	jpeg_finish_compress(&e->cinfo);
	return true;
}

std::runtime_error file_error(const std::string &path, const std::string &msg)
{
	return std::runtime_error(path + ": " + msg);
}

} // namespace

RgbImage decode_jpeg(const uint8_t *data, size_t size, const std::string &name)
{
	Decoder d{};
	// Destroys the decompressor on every path; safe on a zeroed or
	// half-created one (it frees nothing when cinfo.mem is null).
	struct Destroy {
		Decoder *d;
		~Destroy() { jpeg_destroy_decompress(&d->cinfo); }
	} destroy{ &d };
	auto fail = [&](const std::string &why) {
		return file_error(name, "cannot decode JPEG: " + why);
	};

	if (!read_header(&d, data, size))
		throw fail(d.err.message);
	unsigned long w = d.cinfo.image_width, h = d.cinfo.image_height;
	if (w == 0 || h == 0 || w * h > kMaxPixels)
		throw fail(std::to_string(w) + " x " + std::to_string(h) +
			   " pixels is more than " + std::to_string(kMaxPixels));
	RgbImage img;
	img.width = static_cast<int>(w);
	img.height = static_cast<int>(h);
	img.pixels.resize(w * h * 3);
	std::vector<uint8_t> row(w * 4);
	if (!decode_pixels(&d, img.pixels.data(), row.data()))
		throw fail(d.err.message);
	return img;
}

std::vector<uint8_t> encode_jpeg(const RgbImage &img, int quality)
{
	if (img.width <= 0 || img.height <= 0 || img.width > JPEG_MAX_DIMENSION ||
	    img.height > JPEG_MAX_DIMENSION ||
	    img.pixels.size() != static_cast<size_t>(img.width) * img.height * 3)
		throw std::invalid_argument(
			"encode_jpeg: a " + std::to_string(img.width) + " x " +
			std::to_string(img.height) + " image needs 1..65500 pixels a side and 3 bytes a pixel, has " +
			std::to_string(img.pixels.size()) + " bytes");
	if (quality < 1 || quality > 100)
		throw std::invalid_argument("encode_jpeg: quality " +
					    std::to_string(quality) + " is not 1..100");
	Encoder e{};
	struct Release {
		Encoder *e;
		~Release()
		{
			jpeg_destroy_compress(&e->cinfo);
			std::free(e->dest.buf);
		}
	} release{ &e };
	if (!compress(&e, img.pixels.data(), img.width, img.height, quality))
		throw std::runtime_error(std::string("encode_jpeg: ") + e.err.message);
	return std::vector<uint8_t>(e.dest.buf, e.dest.buf + e.dest.length);
}

std::vector<uint8_t> read_file_bytes(const std::string &path)
{
	int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		throw file_error(path, std::string("cannot open: ") + std::strerror(errno));
	struct stat st;
	if (::fstat(fd, &st) != 0) {
		int err = errno;
		::close(fd);
		throw file_error(path, std::string("cannot stat: ") + std::strerror(err));
	}
	if (!S_ISREG(st.st_mode)) {
		::close(fd);
		throw file_error(path, "not a regular file");
	}
	// Sized by fstat, but read to the end: a file that grows or shrinks
	// meanwhile gives what was there, not a short buffer of zeros.
	std::vector<uint8_t> bytes(static_cast<size_t>(st.st_size) + 1);
	size_t got = 0;
	for (;;) {
		if (got == bytes.size())
			bytes.resize(2 * bytes.size());
		ssize_t n = ::read(fd, bytes.data() + got, bytes.size() - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int err = errno;
			::close(fd);
			throw file_error(path, std::string("cannot read: ") + std::strerror(err));
		}
		if (n == 0)
			break;
		got += static_cast<size_t>(n);
	}
	::close(fd);
	bytes.resize(got);
	return bytes;
}

} // namespace train
} // namespace omru
