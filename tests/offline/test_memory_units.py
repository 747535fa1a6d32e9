"""The memory figures a question writes, read once for every reader (memory_units.figures / sizes_gb)."""

from assistant.offline.memory_units import figures, sizes_gb


def test_units_are_read_as_the_tools_print_them() -> None:
    # npu-smi and nvidia-smi print MiB and label it MB: 65536 MB is 64 GiB
    got = [(f.value, f.unit, f.gib) for f in figures("npu-smi says 65536 MB, the flavor says 64GB, k8s limit 64Gi")]
    assert got == [(65536.0, "MB", 64.0), (64.0, "GB", 64.0), (64.0, "GiB", 64.0)]


def test_sizes_gb_keeps_part_sizes_only() -> None:
    # two- and three-digit GB sizes are a part's memory; "8g" (a count-like figure) and MiB figures are not
    assert sizes_gb("H20 96G 显存对吗，还是 141GB? 8g 不算, 81920MiB 也不算") == [96.0, 141.0]
    assert sizes_gb("910B4 是 32GB 还是 64 GiB") == [32.0, 64.0]
