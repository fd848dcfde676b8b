"""Appendix B: the worked numbers of tables B.1 and B.2 for every benchmark."""

from __future__ import annotations

import pytest

from checker.metrics.bandwidth import declared_types, load_appendix_b, minimum

TABLE = load_appendix_b()

# (benchmark, "Minimum network bandwidth (bytes/sec)" column of B.1 per sample, with the declared types)
INGRESS = [
    ("resnet", "int8", 150528),            # throughput*150528*dtype_size (= 3*224*224)
    ("resnet", "fp32", 150528 * 4),
    ("retinanet", "int8", 1920000),        # throughput*1920000*dtype_size (= 3*800*800)
    ("3d-unet", "fp16", 32944795 * 2),     # throughput*32944795*dtype_size
    ("bert", "int32", 1152 * 4),           # throughput*1152*dtype_size (= 3*384)
    ("gptj", "int32", 2048 * 4),           # throughput*2048*dtype_size
    ("llama2-70b", "int32", 1024 * 4),     # throughput*1024*dtype_size
    ("llama3.1-405b", "int32", 20000 * 4),  # throughput*20000*dtype_size
    ("mixtral-8x7b", "int64", 2048 * 8),   # throughput*2048*dtype_size
    ("dlrm-v2", "fp16, int32", 270 * (13 * 2 + 26 * 4)),  # throughput*270*(13*dtype_size1+26*dtype_size2)
    ("dlrm-v2", "fp32", 270 * (13 * 4 + 26 * 4)),
    ("sdxl", "int32", 77 * 4),             # throughput*77*dtype_size
    ("rgat", "fp32", 0),                   # negligible, > 0
]
EGRESS = [
    ("resnet", 0), ("retinanet", 0), ("bert", 0), ("gptj", 0), ("dlrm-v2", 0), ("rgat", 0),  # negligible
    ("3d-unet", 32944795),                 # throughput*32944795*dtype_size (labels, 1 byte)
    ("llama2-70b", 1024 * 4),              # throughput*1024*dtype_size (int32 token ids)
    ("llama3.1-405b", 20000 * 4),          # throughput*20000*dtype_size
    ("mixtral-8x7b", 2048 * 4),            # throughput*2048*dtype_size
    ("sdxl", 3145728),                     # throughput*3,145,728*dtype_size (uint8 pixels)
]


@pytest.mark.parametrize("bench,dtype,per_sample", INGRESS)
def test_ingress(bench, dtype, per_sample) -> None:
    types = declared_types(dtype, TABLE)
    need = minimum(TABLE, bench, "ingress", 1.0, types)
    assert need.bytes_per_sample == per_sample
    assert minimum(TABLE, bench, "ingress", 2500.0, types).bytes_per_s == pytest.approx(2500.0 * per_sample)
    assert need.negligible == (per_sample == 0)


@pytest.mark.parametrize("bench,per_sample", EGRESS)
def test_egress(bench, per_sample) -> None:
    need = minimum(TABLE, bench, "egress", 10.0, declared_types("int32", TABLE))
    assert need.bytes_per_s == pytest.approx(10.0 * per_sample)
    assert need.negligible == (per_sample == 0)


def test_every_benchmark_has_a_row_and_numeric_formula_matches() -> None:
    assert set(TABLE.benchmarks) == {b for b, _, _ in INGRESS} | {b for b, _ in EGRESS}
    for key, bench in TABLE.benchmarks.items():
        for req in (bench.ingress, bench.egress):
            if req.negligible:
                continue
            # the "numeric" column, evaluated with every dtype_size = 1, equals factor * sum(counts)
            numeric = req.numeric.replace("dtype_size1", "1").replace("dtype_size2", "1").replace("dtype_size", "1")
            assert eval(numeric, {"__builtins__": {}}) == req.factor * sum(t.count for t in req.terms), key


def test_worked_example_resnet_fp32() -> None:
    need = minimum(TABLE, "resnet", "ingress", 100000.0, declared_types("fp32", TABLE))
    assert need.bytes_per_s == 100000 * 150528 * 4 == 60211200000
    assert "throughput*150528*dtype_size" in need.formula and "dtype_size=4 (fp32)" in need.inputs


def test_declared_types() -> None:
    assert declared_types("UINT8", TABLE).sizes == (1,)
    assert declared_types("int8", TABLE).names == ("int8",)  # not "uint8", not "int"
    assert declared_types(["fp16", "int32"], TABLE).sizes == (2, 4)
    unknown = declared_types("No change.", TABLE)
    assert unknown.assumed and unknown.sizes == ()
    need = minimum(TABLE, "bert", "ingress", 1.0, unknown)
    assert need.bytes_per_sample == 1152 * TABLE.unknown_dtype_size and need.assumed


def test_models_map_to_rows() -> None:
    assert TABLE.for_model("resnet")[0] == "resnet"
    assert TABLE.for_model("llama2-70b-99.9")[0] == "llama2-70b"
    assert TABLE.for_model("stable-diffusion-xl")[0] == "sdxl"
    assert TABLE.for_model("no-such-model") is None
