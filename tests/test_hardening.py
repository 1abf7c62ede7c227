"""Regressions of the hardening issue: each bad input is refused cleanly, nothing hangs.

Every test here reproduces one report (a crash, a hang, a lost file or a silent
misreading) and pins the clean behaviour: an exception naming the parameter, or
exit status 2 on the command line, and nothing written.
"""

from __future__ import annotations

import json
import os
import stat
import threading
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from cli_run import run

from finitedp import PartialHistogram, ResourceLimitError
from finitedp.cli import main
from finitedp.errors import ParameterError

ROWS = "v\n1\n2\n3\n"


@pytest.fixture
def data(tmp_path: Path) -> Path:
    path = tmp_path / "d.csv"
    path.write_text(ROWS, encoding="utf-8")
    return path


@pytest.fixture
def release_file(data: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    out = tmp_path / "r.json"
    argv = [str(data), "--column", "v", "--universe", "int:5", "--epsilon", "1", "--seed", "00"]
    assert run(["release", *argv, "--out", str(out), "--quiet"], capsys)[0] == 0
    return out


# -- crashes and hangs (items 1-3) ---------------------------------------------------------


@pytest.mark.parametrize("mechanism", ["bounded-geometric", "pure-sparse"])
def test_small_epsilon_releases_instead_of_aborting_in_gmp(
    data: Path, mechanism: str, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["release", str(data), "--column", "v", "--universe", "int:10"]
    status, out, _ = run([*argv, "--epsilon", "1/1000", "--mechanism", mechanism], capsys)
    assert status == 0 and json.loads(out)["parameters"]["epsilon"] == "1/1000"


def test_default_mechanism_at_epsilon_one_tenth_has_no_digit_limit(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # The README's main job at eps = 1/10: d has more than 4,300 decimal digits.
    argv = ["release", "examples/data/visits.csv", "--column", "city", "--universe", "utf8:16"]
    status, out, _ = run([*argv, "--epsilon", "1/10", "--seed", "00", "--quiet"], capsys)
    assert status == 0
    document = json.loads(out)
    assert len(document["release"]["counter"]["d"]) > 4300
    # and it reads back: query evaluates the compact release
    assert document["release"]["type"] == "compact_histogram"


def test_compact_release_round_trips_a_huge_d(capsys: pytest.CaptureFixture[str]) -> None:
    from finitedp import CompactHistogram, CompactRelease, SeededSource

    mech = CompactHistogram(2, 2**20, "1/20", "1/10")
    release = mech.release([1, 5], rng=SeededSource(b"x"))
    assert release.to_json_dict()["counter"]["d"].isdigit()
    assert len(release.to_json_dict()["counter"]["d"]) > 4300
    again = CompactRelease.from_json(release.to_json())
    assert [again.count(x) for x in (1, 5, 9)] == [release.count(x) for x in (1, 5, 9)]


def test_huge_universe_on_two_rows_is_released_without_a_binomial_table(
    data: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # utf8:1024 has |X| near 2^8200: its map into GF(2^13122) walks binomials.
    argv = ["release", str(data), "--column", "v", "--universe", "utf8:1024", "--epsilon", "1"]
    status, out, err = run([*argv, "--quiet", "--seed", "00"], capsys)
    assert status == 0, err
    assert json.loads(out)["universe"] == "utf8:1024"


def test_audit_at_epsilon_ten_to_minus_48_finishes(capsys: pytest.CaptureFixture[str]) -> None:
    eps = f"1/{10**48}"
    status, out, _ = run(["audit", "geo", "--n", "3", "--epsilon", eps, "--quiet"], capsys)
    assert status == 0 and "[holds]" in out


def test_resource_estimate_refuses_before_work(capsys: pytest.CaptureFixture[str]) -> None:
    eps = f"1/{10**50}"
    status, _, err = run(["audit", "fast", "--n", "3", "--epsilon", eps, "--gamma", "1/2"], capsys)
    assert status == 2 and "above the limit" in err and "FINITEDP_MAX_MEMORY" in err


def test_large_counting_audit_is_refused_before_work(capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = run(["audit", "geo", "--n", "10000", "--epsilon", "1"], capsys)
    assert status == 2 and "100,020,001 paths" in err


def test_counting_audit_checks_beta_before_the_work(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["audit", "fast", "--n", "300", "--epsilon", "1", "--gamma", "1/2"]
    status, _, err = run(argv, capsys)
    assert status == 2 and "beta: got 1/10" in err


def test_geosample_size_is_refused_by_the_memory_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    from finitedp import GeoSample

    monkeypatch.setenv("FINITEDP_MAX_MEMORY", "1M")
    with pytest.raises(ResourceLimitError, match=r"n = 10000000, epsilon = 1: GeoSample"):
        GeoSample(10_000_000, 1)


def test_crafted_tight_release_with_tiny_epsilon_is_answered(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A 1 KB release asking for a tight FastSample at eps = 1/20000 used to hang query.
    from finitedp.counting.fastsample import FastSample

    sampler = FastSample(2, "1/20000", "1/2", noise="tight")
    assert sampler.t > 10**5  # computed from logarithms, not by raising b/a to powers


# -- data loss (item 4) --------------------------------------------------------------------


def test_out_dash_is_stdout(data: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["release", str(data), "--column", "v", "--universe", "int:5", "--epsilon", "1"]
    status, out, _ = run([*argv, "--out", "-", "--quiet"], capsys)
    assert status == 0 and json.loads(out)["mechanism"]
    assert not Path("-").exists()


def test_out_through_a_symlink_writes_its_target(
    data: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target, link = tmp_path / "target.json", tmp_path / "link.json"
    target.write_text("old", encoding="utf-8")
    link.symlink_to(target)
    argv = ["release", str(data), "--column", "v", "--universe", "int:5", "--epsilon", "1"]
    assert run([*argv, "--out", str(link), "--quiet"], capsys)[0] == 0
    assert link.is_symlink() and json.loads(target.read_text(encoding="utf-8"))["mechanism"]


def test_out_to_a_fifo_writes_through_it(
    data: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()))
    reader.start()
    argv = ["release", str(data), "--column", "v", "--universe", "int:5", "--epsilon", "1"]
    status = run([*argv, "--out", str(fifo), "--quiet"], capsys)[0]
    reader.join(timeout=30)
    assert status == 0 and stat.S_ISFIFO(fifo.stat().st_mode)
    assert json.loads(received[0])["mechanism"]


def test_out_to_a_character_device_is_not_replaced(
    data: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    device = tmp_path / "null"
    try:  # a copy of /dev/null inside the temporary directory (needs root)
        os.mknod(device, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    except (PermissionError, OSError):
        pytest.skip("cannot create a device node here")
    argv = ["release", str(data), "--column", "v", "--universe", "int:5", "--epsilon", "1"]
    assert run([*argv, "--out", str(device), "--quiet"], capsys)[0] == 0
    assert stat.S_ISCHR(device.stat().st_mode)


def test_out_to_a_socket_is_refused(
    data: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import socket

    path = tmp_path / "s"
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(path))
        argv = ["release", str(data), "--column", "v", "--universe", "int:5", "--epsilon", "1"]
        status, _, err = run([*argv, "--out", str(path)], capsys)
    assert status == 2 and "neither a regular file" in err


# -- input validation (items 5, 6, 10) ----------------------------------------------------


def altered(release_file: Path, change: Any) -> Path:
    document = json.loads(release_file.read_text(encoding="utf-8"))
    change(document)
    path = release_file.with_name("altered.json")
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


def _set_bins(bins: list[Any]) -> Any:
    return lambda d: d["release"].__setitem__("bins", bins)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (_set_bins([[1, 2.7]]), "bins[0] count: got 2.7"),
        (_set_bins([[1.9, 1]]), "bins[0] x: got 1.9"),
        (_set_bins([[True, True]]), "bins[0] x: got True"),
        (_set_bins([[1, 10**30]]), "is above n = 3"),
        (lambda d: d["release"].pop("universe_size"), "universe_size: missing"),
        (lambda d: d["release"].__setitem__("bins", "x"), "bins: expected a list"),
    ],
)
def test_query_refuses_impossible_releases(
    release_file: Path, change: Any, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, err = run(["query", str(altered(release_file, change)), "1"], capsys)
    assert status == 2 and message in err and out == ""


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"release": {"bins": [[1, Infinity]]}}', "Infinity is not a JSON number"),
        ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
        ("{", "not JSON"),
    ],
)
def test_query_refuses_non_json_cleanly(
    tmp_path: Path, text: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "bad.json"
    path.write_text(text, encoding="utf-8")
    status, _, err = run(["query", str(path), "1"], capsys)
    assert status == 2 and message in err


def test_vectors_verify_reports_deep_json_and_empty_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    deep = tmp_path / "deep.jsonl"
    deep.write_text("[" * 100_000 + "]" * 100_000 + "\n", encoding="utf-8")
    status, _, err = run(["vectors", "verify", str(deep)], capsys)
    assert status == 1 and "nested too deeply" in err
    empty = tmp_path / "empty.jsonl"
    empty.write_text("", encoding="utf-8")
    status, _, err = run(["vectors", "verify", str(empty)], capsys)
    assert status == 1 and err.strip() == "FAILED: the file holds no vectors"


def test_big_integers_are_decimal_strings_and_old_numbers_still_read() -> None:
    h = PartialHistogram(2**128, ((2**127 + 1, 3),))
    document = json.loads(h.to_json())
    assert document["universe_size"] == str(2**128)
    assert document["bins"] == [[str(2**127 + 1), 3]]
    assert PartialHistogram.from_json(h.to_json()) == h
    old = '{"type":"partial_histogram","version":1,"universe_size":%d,"bins":[[%d,3]]}'
    assert PartialHistogram.from_json(old % (2**128, 2**127 + 1)) == h


def test_ctrl_c_exits_130_quietly(
    monkeypatch: pytest.MonkeyPatch, data: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from finitedp.engines import duckdb as command  # where release reads its key column

    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(command, "read_counts", interrupted)
    argv = ["release", str(data), "--column", "v", "--universe", "int:5", "--epsilon", "1"]
    status, out, err = run([*argv, "--quiet"], capsys)
    assert status == 130 and out == "" and "Traceback" not in err


def test_command_line_numbers_are_ascii_decimals(capsys: pytest.CaptureFixture[str]) -> None:
    for bad in ("1_0", "\uff11\uff12", " 3", "1" * 200):
        with pytest.raises(SystemExit) as exit_info:
            main(["audit", "geo", "--n", bad, "--epsilon", "1"])
        assert exit_info.value.code == 2
        err = capsys.readouterr().err
        assert "ASCII digits" in err and "1" * 100 not in err


def test_memory_limit_setting_is_validated(monkeypatch: pytest.MonkeyPatch) -> None:
    from finitedp.resources import max_memory

    monkeypatch.setenv("FINITEDP_MAX_MEMORY", "512M")
    assert max_memory() == 512 << 20
    monkeypatch.setenv("FINITEDP_MAX_MEMORY", "0")
    with pytest.raises(ParameterError, match="FINITEDP_MAX_MEMORY"):
        max_memory()


def test_fraction_in_reports_never_hits_the_digit_limit() -> None:
    from finitedp.checker.plan import exact_text

    huge = Fraction(3**20000, 2**40000)
    assert exact_text(huge).startswith("<a fraction of")
    assert exact_text(Fraction(1, 3)) == "1/3"


# -- pins for mutations the suite did not notice ------------------------------------------


@pytest.mark.parametrize(
    ("n", "delta", "beta0", "gamma"),
    [
        (400, "1/8", "1/10", Fraction(1, 8000)),  # beta0/(2n) = 1/8000 < delta/4 = 1/32
        (400, "1/1000", "1/2", Fraction(1, 4000)),  # delta/4 = 1/4000 < beta0/(2n) = 1/1600
    ],
)
def test_stability_gamma_is_min_of_beta0_over_2n_and_delta_over_4(
    n: int, delta: str, beta0: str, gamma: Fraction
) -> None:
    from finitedp import FastSample, StabilityHistogram

    sampler = StabilityHistogram(n, 5, 1, delta, beta0).sampler
    assert isinstance(sampler, FastSample) and sampler.gamma == gamma


def test_compact_field_level_counts_30_d_over_epsilon() -> None:
    # Thm 8.6: L = 2 * 3^l with l = ceil(log3(ceil(log2 max(|X|, 30 d/eps)) / 2)).
    # On a small universe the 30 d / eps term decides l; without it l would be 0 or 1.
    from finitedp import CompactHistogram

    mech = CompactHistogram(1, 4, 1, counter="geo")  # GeoSample: d = 9, 30 d / eps = 270
    assert mech.sampler.d == 9
    assert mech.level == 2  # ceil(log2 270) = 9 > 6 = 2 * 3^1; log2(9) alone gives l = 1


# -- items 7, 8, 9, 11 ---------------------------------------------------------------------


def test_public_helpers_return_fractions_for_int_arguments() -> None:
    from finitedp.histograms.bounds import per_query_lower_bound, stability_threshold
    from finitedp.histograms.sparse import pure_sparse_delta

    delta = pure_sparse_delta(1, Fraction(1, 4), 2, 10)  # type: ignore[arg-type]
    assert isinstance(delta, Fraction) and delta == Fraction(1, 10800)
    assert stability_threshold("geo", 1, Fraction(1, 100)) == stability_threshold(  # type: ignore[arg-type]
        "geo", Fraction(1), Fraction(1, 100)
    )
    with pytest.raises(TypeError, match="float"):
        per_query_lower_bound(0.5, 0, Fraction(1, 4), 10)  # type: ignore[arg-type]


@pytest.mark.parametrize("noise_seed", [b"a", b"b", b"c"])
def test_basic_histogram_validates_bins_before_any_draw(noise_seed: bytes) -> None:
    from finitedp import GeoSample, SeededSource
    from finitedp.histograms.basic import basic_histogram

    sampler = GeoSample(3, 1)
    cases = (([2.5], TypeError), ([True], TypeError), ([0], ValueError), ("12", TypeError))
    for bad, error in cases:
        with pytest.raises(error, match="bins"):
            basic_histogram(sampler, [1, 2, 3], 5, bad, SeededSource(noise_seed))  # type: ignore[arg-type]


def test_ragged_csv_record_is_an_error_naming_its_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "cities.csv"
    path.write_text("city\nParis\nWashington, D.C.\n", encoding="utf-8")
    argv = ["release", str(path), "--column", "city", "--universe", "utf8:20", "--epsilon", "1"]
    status, out, err = run(argv, capsys)
    assert status == 2 and out == ""
    assert "line 3: the record has 2 fields but the header has 1" in err


def test_multi_line_record_error_names_its_first_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "notes.csv"
    path.write_text('a,b\n1,"two\nlines",extra\n', encoding="utf-8")
    argv = ["release", str(path), "--column", "a", "--universe", "int:5", "--epsilon", "1"]
    status, _, err = run(argv, capsys)
    assert status == 2 and "line 2:" in err


@pytest.mark.parametrize("text", ["\uff11/\uff12", "1_0", "1e99999", "1/0", "0x10"])
def test_exact_numbers_are_ascii_and_bounded(text: str) -> None:
    from finitedp.params import exact_fraction

    with pytest.raises(ParameterError, match="not an exact number"):
        exact_fraction(text, "epsilon")


def test_long_parameters_are_parsed_and_not_echoed(capsys: pytest.CaptureFixture[str]) -> None:
    from finitedp.params import exact_fraction

    assert exact_fraction("1/" + "1" + "0" * 5000, "epsilon") == Fraction(1, 10**5000)
    status, _, err = run(["audit", "geo", "--n", "3", "--epsilon", "1/" + "9" * 5000 + "x"], capsys)
    assert status == 2 and "5,003 characters" in err and len(err) < 400


def test_odd_length_seed_says_so(capsys: pytest.CaptureFixture[str]) -> None:
    from finitedp import SeededSource
    from finitedp.errors import OracleError

    with pytest.raises(OracleError, match="3 hex digits; write whole bytes"):
        SeededSource("abc")


# -- negative vectors ---------------------------------------------------------------------

VALID_GEO = {"noise": "paper", "n": "4", "epsilon": "1/2"}
GEO_D = 1125  # GeoSample(4, 1/2): k = 2, a/b = 4/5, d = (4 + 5) 5^3


def test_negative_vectors_regenerate_and_verify(tmp_path: Path) -> None:
    from finitedp.vectors import generate_negative_to, verify

    path = tmp_path / "negative.jsonl"
    generate_negative_to(path)
    assert path.read_bytes() == Path("vectors/negative.jsonl").read_bytes()
    result = verify(path)
    assert result.ok and result.checked >= 40


@pytest.mark.parametrize(
    ("vid", "change"),
    [
        ("negative/counter/geo/float-epsilon", {"params": VALID_GEO}),
        ("negative/mechanism/bounded-geometric/row-outside", {"dataset": ["1", "2", "3"]}),
        ("negative/replay/geo/wrong-d", {"tape": [[str(GEO_D), "1"]]}),
    ],
)
def test_a_negative_vector_made_valid_fails_verification(vid: str, change: dict[str, Any]) -> None:
    from finitedp.vectors.negative import negative_vectors, verify_negative

    vector = next(v for v in negative_vectors() if v["id"] == vid)
    assert verify_negative(vector) is None
    reason = verify_negative({**vector, **change})
    assert reason is not None and "accepted" in reason


def test_tagged_floats_are_refused_as_floats_and_their_exact_twins_accepted() -> None:
    """Issue 25 item 7: ``{"float": "2.0"}`` stands for the float 2.0 (a JSON parser may
    read a bare ``2.0`` as 2); each tagged vector is refused *as a float*, and the same
    vector with the exact string is accepted (it then reaches the oracle)."""
    from finitedp.errors import FloatParameterError
    from finitedp.vectors import negative

    tagged = [v for v in negative.negative_vectors() if v["id"].endswith("/tagged")]
    assert len(tagged) == 3 + len(negative.MECHANISMS)
    for vector in tagged:
        with pytest.raises(FloatParameterError):
            negative._attempt(vector)

        def exact(value: Any) -> Any:
            if isinstance(value, dict):
                if set(value) == {"float"}:
                    text = value["float"]
                    return text[:-2] if text.endswith(".0") else {"0.5": "1/2", "0.25": "1/4"}[text]
                return {key: exact(item) for key, item in value.items()}
            return value

        twin = {**vector, "params": exact(vector["params"])}
        if twin["target"] == "counter":
            negative._attempt(twin)  # built without complaint
        else:
            with pytest.raises(negative._Accepted):
                negative._attempt(twin)


def test_spec_states_the_number_of_negative_vectors() -> None:
    from finitedp.vectors.negative import negative_vectors

    count = sum(1 for _ in negative_vectors())
    spec = Path("SPEC.md").read_text(encoding="utf-8")
    assert f"`vectors/negative.jsonl` holds {count} vectors" in spec


def test_negative_vectors_have_a_schema() -> None:
    from finitedp.vectors.negative import negative_vectors, verify_negative

    vector = next(negative_vectors())
    assert verify_negative({**vector, "flags": []}) == "schema: flags: [] should be non-empty"
    broken = {k: v for k, v in vector.items() if k != "sampler"}
    assert verify_negative(broken) == "schema: (top level): 'sampler' is a required property"
    assert verify_negative({**vector, "result": "valid"}) is not None


def test_compact_interpolation_size_is_refused_before_work() -> None:
    from finitedp import CompactHistogram

    with pytest.raises(ResourceLimitError, match=r"CompactHistogram's interpolation over GF"):
        CompactHistogram(100_000, 10**6, 1, counter="geo")
    assert CompactHistogram(1000, 10**6, 1, counter="geo").level == 7
