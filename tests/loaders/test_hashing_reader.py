"""HashingReader: what its readers read is what the file holds, and the digest is the whole file's, each byte
hashed once whatever the readers did (peeked, sought back, stopped early)."""

from __future__ import annotations

import hashlib
import os

from hypothesis import given
from hypothesis import strategies as st

from checker.loaders.hashing_reader import HashingReader


def _file(tmp_path, data: bytes) -> str:
    path = tmp_path / "f.bin"
    path.write_bytes(data)
    return str(path)


def test_peek_then_read_gives_the_file_once_and_its_sha256(tmp_path):
    data = os.urandom(100_000)
    with HashingReader(open(_file(tmp_path, data), "rb")) as reader:
        assert reader.peek(1000) == data[:1000]
        assert reader.read(10) == data[:10]  # the head again, from memory
        assert reader.read(5000) == data[10:5010]
        assert reader.read() == data[5010:]
        assert reader.read(10) == b""
        assert reader.hexdigest() == hashlib.sha256(data).hexdigest()


def test_the_digest_reads_what_no_reader_read(tmp_path):
    data = os.urandom(3 * (1 << 20) + 7)
    with HashingReader(open(_file(tmp_path, data), "rb"), chunk_size=4093) as reader:
        reader.read(100)
        assert reader.hexdigest() == hashlib.sha256(data).hexdigest()


def test_a_seek_back_is_not_hashed_twice(tmp_path):
    data = b"line one\n" + b"x" * 50_000 + b"\nline three\n"
    with HashingReader(open(_file(tmp_path, data), "rb")) as reader:
        reader.peek(20)
        assert reader.read(30_000) == data[:30_000]
        reader.seek(0)
        assert reader.readline() == b"line one\n"
        assert reader.readline(100) == b"x" * 100
        reader.seek(9)
        assert reader.readline() == b"x" * 50_000 + b"\n"
        assert reader.readline() == b"line three\n"
        assert reader.hexdigest() == hashlib.sha256(data).hexdigest()


def test_a_seek_forward_hashes_what_it_skipped(tmp_path):
    data = os.urandom(10_000)
    with HashingReader(open(_file(tmp_path, data), "rb")) as reader:
        reader.seek(6000)
        assert reader.read(100) == data[6000:6100]
        assert reader.hexdigest() == hashlib.sha256(data).hexdigest()


def test_close_records_the_digest_of_a_file_read_in_part(tmp_path):
    data = os.urandom(5000)
    seen = []
    with HashingReader(open(_file(tmp_path, data), "rb"), seen.append) as reader:
        reader.read(10)
    assert seen == [hashlib.sha256(data).hexdigest()]


@given(st.binary(max_size=3000), st.lists(st.tuples(st.sampled_from("prls"), st.integers(-1, 1200)), max_size=12))
def test_any_reads_give_the_bytes_a_plain_file_gives(tmp_path_factory, data, steps):
    path = _file(tmp_path_factory.mktemp("h"), data)
    with open(path, "rb") as plain, HashingReader(open(path, "rb")) as reader:
        for op, n in steps:
            if op == "p" and n >= 0:
                assert reader.peek(n) == data[:n]
            elif op == "r":
                assert reader.read(n) == plain.read(n)
            elif op == "l":
                assert reader.readline(n) == plain.readline(n)
            elif op == "s" and n >= 0:
                assert reader.seek(n) == plain.seek(n)
            assert reader.tell() == plain.tell()
        assert reader.hexdigest() == hashlib.sha256(data).hexdigest()
