"""Avatar images: decoded and verified with Pillow (never trusting the name or the declared
content type), only JPEG, PNG, GIF and WebP, at most 2 MB, 2048 px a side and 4 Mpx, and
re-encoded from the pixels alone so no metadata (EXIF, GPS, ICC, comments, trailing bytes)
survives; stored at most 1024 px a side. An animated GIF keeps its first frame.

Decoding is the costly part (a 2 MB file can hold many megapixels): the pixel bound is checked
from the header before decoding, a JPEG is decoded at the reduced scale it is stored at, and at
most ``DECODERS`` images are decoded at once per process (16 MB of RGBA each at the bound)."""

from __future__ import annotations

import hashlib
import threading
import warnings
from dataclasses import dataclass
from io import BytesIO

from PIL import Image, UnidentifiedImageError

MAX_BYTES = 2 * 1024 * 1024
MAX_SIDE = 2048
MAX_PIXELS = 2048 * 2048
STORED_SIDE = 1024
DECODERS = 2
_decoding = threading.BoundedSemaphore(DECODERS)
# Pillow's decompression-bomb guard at our own bound (it raises at twice this).
Image.MAX_IMAGE_PIXELS = MAX_PIXELS

# Pillow format -> (file extension, content type)
FORMATS = {
    "JPEG": ("jpg", "image/jpeg"),
    "PNG": ("png", "image/png"),
    "GIF": ("gif", "image/gif"),
    "WEBP": ("webp", "image/webp"),
}


class AvatarRejected(Exception):
    def __init__(self, detail: str, *, slug: str, status: int) -> None:
        super().__init__(detail)
        self.detail, self.slug, self.status = detail, slug, status


def too_large(detail: str) -> AvatarRejected:
    return AvatarRejected(detail, slug="payload-too-large", status=413)


def unsupported(detail: str) -> AvatarRejected:
    return AvatarRejected(detail, slug="unsupported-media-type", status=415)


@dataclass(frozen=True)
class CleanImage:
    data: bytes
    extension: str
    content_type: str
    width: int
    height: int

    @property
    def name(self) -> str:
        """Content-addressed: the same image always gets the same name."""
        return f"{hashlib.sha256(self.data).hexdigest()[:40]}.{self.extension}"


def _open(data: bytes) -> Image.Image:
    return Image.open(BytesIO(data), formats=list(FORMATS))


def clean(data: bytes) -> CleanImage:
    """The re-encoded image, or AvatarRejected (413 too large, 415 not an allowed image)."""
    if len(data) > MAX_BYTES:
        raise too_large(f"The image is {len(data)} bytes; at most {MAX_BYTES} are accepted")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            with _open(data) as probe:
                if (
                    probe.width > MAX_SIDE
                    or probe.height > MAX_SIDE
                    or probe.width * probe.height > MAX_PIXELS
                ):
                    raise too_large(
                        f"The image is {probe.width}x{probe.height}; at most "
                        f"{MAX_SIDE} pixels a side are accepted"
                    )
                probe.verify()  # structure and checksums, without decoding the pixels
            with _decoding, _open(data) as image:
                kind = image.format or ""
                image.seek(0)
                if kind == "JPEG":  # decoded at 1/2, 1/4 or 1/8 scale when that is enough
                    image.draft(image.mode, (STORED_SIDE, STORED_SIDE))
                image.load()  # every pixel decoded: truncated or corrupt data fails here
                pixels = image.copy()
                pixels.thumbnail((STORED_SIDE, STORED_SIDE))
    except AvatarRejected:
        raise
    except (Image.DecompressionBombError, Image.DecompressionBombWarning) as exc:
        raise too_large(f"The image has more than {MAX_PIXELS} pixels") from exc
    except (UnidentifiedImageError, OSError, SyntaxError, ValueError, EOFError) as exc:
        raise unsupported("The upload is not a valid JPEG, PNG, GIF or WebP image") from exc
    if kind not in FORMATS:
        raise unsupported("Only JPEG, PNG, GIF and WebP images are accepted")
    extension, content_type = FORMATS[kind]
    # Only what drawing needs survives; everything else in ``info`` (EXIF, ICC, XMP, text
    # chunks, comments) is dropped, and nothing after the image data is ever copied.
    pixels.info = {k: v for k, v in pixels.info.items() if k in ("transparency", "duration")}
    out = BytesIO()
    if kind == "JPEG":
        pixels.convert("RGB" if pixels.mode not in ("RGB", "L") else pixels.mode).save(
            out, "JPEG", quality=90
        )
    elif kind == "WEBP":
        pixels.save(out, "WEBP", quality=90)
    else:
        pixels.save(out, kind)
    return CleanImage(out.getvalue(), extension, content_type, pixels.width, pixels.height)
