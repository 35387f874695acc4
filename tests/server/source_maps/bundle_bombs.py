"""Hostile source bundles: zips whose members expand far beyond their compressed size.

A member of N MiB of one repeated byte is built from one deflated MiB repeated N times (each piece ends with
a full flush, so every piece compresses to the same bytes), so a 1.5 GiB member takes a second to build
and 1.6 MB to send.
"""

from __future__ import annotations

import io
import zipfile
import zlib

MIB = 1024**2


def repeated_member(mebibytes: int, byte: bytes = b" ") -> tuple[bytes, int, int]:
    """A raw deflate stream of `mebibytes` MiB of `byte`, with its expanded size and CRC-32."""
    piece = byte * MIB
    compressor = zlib.compressobj(9, zlib.DEFLATED, -15)
    segment = compressor.compress(piece) + compressor.flush(zlib.Z_FULL_FLUSH)
    crc = 0
    for _ in range(mebibytes):
        crc = zlib.crc32(piece, crc)
    return segment * mebibytes + compressor.flush(), mebibytes * MIB, crc


def bundle(members: dict[str, bytes | tuple[bytes, int, int]]) -> bytes:
    """A zip of the members: plain bytes are deflated as usual; (raw deflate, size, crc) are written as given."""
    output = io.BytesIO()
    with zipfile.ZipFile(output, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, member in members.items():
            if isinstance(member, bytes):
                archive.writestr(name, member)
                continue
            raw, size, crc = member
            info = zipfile.ZipInfo(name, date_time=(2024, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            info.file_size, info.compress_size, info.CRC = size, len(raw), crc
            info.header_offset = output.tell()
            output.write(info.FileHeader())
            output.write(raw)
            # What ZipFile.writestr records for a member, so close() writes the central directory.
            archive.filelist.append(info)
            archive.NameToInfo[name] = info
            archive.start_dir = output.tell()
    return output.getvalue()
