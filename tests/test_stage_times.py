"""bench/stage_times.py: time per stage from Snakemake benchmark files."""

import importlib.util
from pathlib import Path

import pytest

spec = importlib.util.spec_from_file_location("stage_times", Path(__file__).parents[1] / "bench" / "stage_times.py")
stage_times = importlib.util.module_from_spec(spec)
spec.loader.exec_module(stage_times)

HEADER = "s\th:m:s\tmax_rss\tmax_vms\tmax_uss\tmax_pss\tio_in\tio_out\tmean_load\tcpu_time\n"


def _bench(path: Path, seconds: float, rss: float) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(HEADER + f"{seconds}\t0:00:01\t{rss}\t1\t1\t1\t0\t0\t50\t1\n")


def test_stages_sum_their_jobs(tmp_path):
    _bench(tmp_path / "train/math/seed0.tsv", 60.0, 700)
    _bench(tmp_path / "train/if/seed0.tsv", 40.0, 650)
    _bench(tmp_path / "sample/base/math.tsv", 9.0, 500)
    t = stage_times.stage_times(tmp_path).set_index("stage")
    assert t.loc["train", "jobs"] == 2 and t.loc["train", "total_s"] == 100.0
    assert t.loc["train", "median_s"] == 50.0 and t.loc["train", "max_rss_mb"] == 700
    assert list(t.index) == ["train", "sample"]  # largest first


def test_not_a_benchmark_file_is_named(tmp_path):
    (tmp_path / "x").mkdir()
    (tmp_path / "x" / "bad.tsv").write_text("a\tb\n1\t2\n")
    with pytest.raises(ValueError, match="bad.tsv: not a Snakemake benchmark file"):
        stage_times.stage_times(tmp_path)
    assert stage_times.main([str(tmp_path / "missing")]) == 1


def test_a_warm_jobs_peak_memory_comes_from_its_log(tmp_path):
    # the benchmark file measured the waiting client (30 MB); the warm process wrote its own peak to the log
    _bench(tmp_path / "benchmarks/sample/base/math.tsv", 1.0, 30)
    _bench(tmp_path / "benchmarks/sample/base/if.tsv", 1.0, 30)
    log = tmp_path / "logs/sample/base/math.log"
    log.parent.mkdir(parents=True)
    log.write_text("sampling backend: fast\nwarm job: peak RSS 512 MB\n")
    t = stage_times.stage_times(tmp_path / "benchmarks").set_index("stage")
    assert t.loc["sample", "max_rss_mb"] == 512
