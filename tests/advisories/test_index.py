"""The index (README.md) stays true: one row per advisory, in order, and
every test a row names exists in this folder's test files or in the C++
tests it names."""

import pathlib
import re

HERE = pathlib.Path(__file__).parent
ROOT = HERE.parent.parent
ROW = re.compile(r"^\| (TFSA-\d{4}-\d{3}) \| (.*?) \| (.*) \|$")


def _rows():
    rows = []
    for line in (HERE / "README.md").read_text().splitlines():
        m = ROW.match(line)
        if m:
            rows.append(m.groups())
    return rows


def _python_tests():
    names = set()
    for path in HERE.glob("test_*.py"):
        names.update(re.findall(r"^def (test_\w+)", path.read_text(), re.M))
    return names


def test_every_advisory_has_one_row_in_order():
    ids = [r[0] for r in _rows()]
    assert ids, "README.md has no advisory rows"
    assert len(ids) == len(set(ids)), "an advisory has two rows"
    assert ids == sorted(ids), "rows are not in advisory order"
    by_year = {}
    for i in ids:
        _, year, num = i.split("-")
        by_year.setdefault(year, []).append(int(num))
    for year, nums in by_year.items():
        assert nums == list(range(1, len(nums) + 1)), (
            f"advisories of {year} skip a number")


def test_every_named_test_exists():
    python_tests = _python_tests()
    cpp_sources = "\n".join(
        p.read_text(errors="replace")
        for d in ("opkit", "tests", "compat")
        for p in (ROOT / d).rglob("*_test.cc"))
    for tfsa, _, what in _rows():
        for name in re.findall(r"`(test_\w+)`", what):
            assert name in python_tests, f"{tfsa}: no Python test {name}"
        for suite, case in re.findall(r"`(\w+)\.(\w+)`", what):
            assert re.search(rf"\b{suite},\s*{case}\b", cpp_sources), (
                f"{tfsa}: no C++ test {suite}.{case}")


def test_every_advisory_test_is_indexed():
    indexed = set()
    for _, _, what in _rows():
        indexed.update(re.findall(r"`(test_\w+)`", what))
    for name in _python_tests():
        if name.startswith("test_tfsa_"):
            assert name in indexed, f"{name} is not in README.md"


def test_the_root_readme_counts_match_the_index():
    rows = _rows()
    applicable = [r for r in rows if not r[2].startswith("not applicable")]
    covered = [r for r in applicable
               if not r[2].startswith(("applicable, not yet covered", "not covered"))
               and re.search(r"`(test_\w+|\w+\.\w+)`", r[2])]
    text = (ROOT / "README.md").read_text()
    m = re.search(r"(\d+) of the (\d+) applicable advisories have a regression test "
                  r"\((\d+) advisories in all", text)
    assert m, "README.md's Reliability section has no advisory counts"
    assert tuple(int(g) for g in m.groups()) == (len(covered), len(applicable), len(rows)), (
        f"README.md says {m.group(0)!r}; the index has {len(covered)} covered, "
        f"{len(applicable)} applicable, {len(rows)} in all")
