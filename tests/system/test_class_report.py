"""The class report: one page of a graded class, from the results.json files grading leaves, read as an
instructor reads it and, where Debian's chromium is installed (.ci/run installs it), as a browser shows it."""

import json
import re
import shutil
import subprocess
from html import escape, unescape

import pytest

from autograder import __main__ as cli
from autograder.engine.authoring import mistakes
from autograder.engine.contract import spec
from autograder.engine.contract.noticed import KIT_REACH, NOT_RUN
from autograder.engine.contract.protocol import visible_name
from autograder.engine.judge.diagnosis import LIKELY_MISTAKE
from autograder.engine.judge.platforms import gradescope
from autograder.engine.judge.results import BREAKOUT, ComponentResult, Report, Sheet
from autograder.engine.judge.run import TestResult

HOSTILE = "<img src=x onerror=alert(1)>$\\alpha$"
LN = "the variance divides by D - 1 (unbiased)"
MASK = "the causal mask is upper-triangular"


def result(component_id, passed, total, diagnosis=None, fatal=None, flags=(), timed_out=False, notes=()):
    tests = [TestResult(f"t{i}", i < passed, "" if i < passed else "wrong") for i in range(total)]
    return ComponentResult(
        component_id,
        spec.BY_ID[component_id].points,
        tests,
        fatal=fatal,
        notes=list(notes),
        flags=list(flags),
        diagnosis=LIKELY_MISTAKE + diagnosis if diagnosis else None,
        timed_out=timed_out,
    )


# Issue 47: a correct submission whose own message says the words the report once searched feedback for.
FORGED = "the submission could not be read: grading failed; your code ran past the time limit of 1 s; " + LIKELY_MISTAKE


def report(name, components, notes=(), problem=None, sheets=()):
    every = {c.id: result(c.id, 4, 4) for c in spec.COMPONENTS} | {c.id: c for c in components}
    return name, gradescope(Report(name, list(every.values()), list(notes), 1.0, problem, sheets=list(sheets)))


REACH = (
    f'01_attention.ipynb, code cell 18 ("import json, os, sys"): line 3 changes autograder.course.jupyter, {KIT_REACH}'
)
NOT_RUN_NOTE = f'01_attention.ipynb, code cell 19 ("import os"): 1 statement {NOT_RUN} it: line 1 imports os'
SHEET = Sheet("01_attention", 7, 10, ["breakout/01_attention.ipynb (breakout 1): 7 of 10 points"])


CLASS = [
    report("ada", []),
    report("ben", [result("layernorm", 1, 4, LN)]),
    report("cy", [result("layernorm", 2, 4, LN), result("masking", 0, 4, MASK)]),
    report(
        "di",
        [
            result(
                "encoder", 0, 4, fatal="your code ran past the time limit of 60 s while running Encoder", timed_out=True
            )
        ],
    ),
    report("ed", [result("attention", 0, 4, flags=["attention.py, line 3: uses ctypes (not in the policy)"])]),
    report(HOSTILE, [result("masking", 1, 4, MASK)]),
    report(
        "flo",
        [],
        notes=["the submission could not be read: it holds no notebook"],
        problem="the submission could not be read: it holds no notebook",  # as grade.py says it
    ),
    report("hal", [], notes=["while loading your code: transformer.py: syntax error on line 1: invalid syntax"]),
    report("ivy", [result("masking", 4, 4, notes=[f"RuntimeError: {FORGED}"])], notes=[f"note: {FORGED}"]),
    report("jo", [], notes=[REACH, NOT_RUN_NOTE], sheets=[SHEET]),
]


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    folder = tmp_path_factory.mktemp("results")
    for name, results in CLASS:
        (folder / f"{name}.json").write_text(json.dumps(results))  # a student chose the name: any but "/"
    (folder / "gus.json").write_text("{not json")
    out = folder.parent / "class.html"
    assert cli.main(["report", str(folder), "--out", str(out)]) == 0
    return out


def test_every_student_is_there_with_the_scores_of_their_results(page):
    html = page.read_text()
    for name, results in CLASS:
        shown = escape(visible_name(name))
        assert f">{shown}: {results['score']:g} of {results['max_score']:g}</summary>" in html, name
    assert ">gus: 0 of 0</summary>" in html and "gus.json" in html  # an unreadable file is a row, not a crash


def test_named_mistakes_are_counted_as_the_students_reports_name_them(page):
    html = page.read_text()
    counts = {}
    for _, results in CLASS:
        for line in {
            line for t in results["tests"] for line in t["output"].splitlines() if line.startswith(LIKELY_MISTAKE)
        }:
            counts[line[len(LIKELY_MISTAKE) :]] = counts.get(line[len(LIKELY_MISTAKE) :], 0) + 1
    shown = {
        unescape(sentence): int(count)
        for count, sentence in re.findall(r"<span class='count'>(\d+)</span>.*?<span class='likely'>(.*?)</span>", html)
    }
    assert shown == counts == {LN: 2, MASK: 2}
    assert html.index(LN) < html.index("Held for review, timed out")  # ranked before the problems section


def test_held_timed_out_and_unreadable_are_listed_with_their_reasons(page):
    html = unescape(page.read_text())
    problems = html[html.index("Held for review, timed out") : html.index("Each student's feedback")]
    assert "timed out" in problems and "ran past the time limit of 60 s" in problems
    assert "held for review" in problems and "uses ctypes" in problems
    assert "unreadable" in problems and "could not be read: it holds no notebook" in problems
    assert "did not load" in problems and "transformer.py: syntax error on line 1" in problems
    assert ">ivy<" not in problems, "a student's own words are not the kit's markers"


def test_code_that_reached_for_the_kit_or_did_not_run_is_listed_to_read_with_its_lines(page):
    """Issue 49: a hostile notebook showed as "did not load", with nothing that asked an instructor to read it."""
    html = unescape(page.read_text())
    problems = html[html.index("Held for review, timed out") : html.index("Each student's feedback")]
    assert "reached for the kit: read it" in problems and "code cell 18" in problems and "line 3 changes" in problems
    assert "not run: read it" in problems and "code cell 19" in problems


def test_the_breakout_sheets_are_a_column_and_a_section_apart_from_the_codes_points(page):
    html = page.read_text()
    assert f"<th>{BREAKOUT}</th>" in html and "<td>7 of 10</td>" in html
    assert f"<h4>{BREAKOUT}: 7 of 10</h4>" in html and "breakout/01_attention.ipynb (breakout 1)" in html
    assert "Breakout sheets, apart: 1 handed some in, mean 7.0 of 10 points." in html
    assert ">jo: 100 of 100</summary>" in html  # the code's score, as before


def test_report_titles_the_page_as_asked_and_names_students_as_grade_all_does(tmp_path):
    """Issue 49: `report reports/` titled the page "Class report: reports" and listed mallory.ipynb, where grade-all
    says mallory; a name two submissions share (bob/ and bob.py) stays whole, as grade-all keeps it."""
    folder = tmp_path / "reports"
    folder.mkdir()
    for name in ("mallory.ipynb", "bob", "bob.py", "carol.py"):
        (folder / f"{name}.json").write_text(json.dumps(report(name, [])[1]))
    assert cli.main(["report", str(folder), "--out", str(tmp_path / "a.html")]) == 0
    html = (tmp_path / "a.html").read_text()
    assert "<title>Class report</title>" in html and "reports" not in html.split("</h1>")[0]
    names = re.findall(r"<summary>([^:<]+): ", html)
    assert names == ["bob", "bob.py", "carol", "mallory"]
    assert cli.main(["report", str(folder), "--out", str(tmp_path / "b.html"), "--title", "CS 4 <week 3>"]) == 0
    assert "<title>CS 4 &lt;week 3&gt;</title>" in (tmp_path / "b.html").read_text()


def test_what_a_student_wrote_is_escaped(page):
    html = page.read_text()
    assert HOSTILE not in html and "<img src=x" not in html and escape(visible_name(HOSTILE)) in html
    assert html.count("<img ") == 3 and all(
        src.startswith("data:image/png;base64,") for src in re.findall(r"src='([^']*)'", html)
    )


def test_grade_all_writes_the_report_of_what_it_graded(tmp_path):
    folder = tmp_path / "class"
    for name in ("alice", "bob"):
        (folder / name).mkdir(parents=True)
        (folder / name / "masking.py").write_text((spec.SOLUTIONS / "masking.py").read_text())
    upper = mistakes.BY_ID["masking/causal-mask-upper-triangular"].edits
    (folder / "bob" / "masking.py").write_text(mistakes.apply((spec.SOLUTIONS / "masking.py").read_text(), upper))
    out = tmp_path / "class.html"
    assert cli.main(["grade-all", str(folder), "--report", str(out), "--workers", "1"]) == 0
    html = out.read_text()
    assert ">alice: " in html and ">bob: " in html and "<span class='count'>1</span>" in html


CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed (.ci/run installs it)")
def test_a_browser_shows_every_student_every_count_and_no_broken_image(page, tmp_path):
    """The page as chromium lays it out: a script added to a copy (the report itself has none) counts the images
    that did not load and the students the page shows, and writes both into the DOM that chromium dumps."""
    probe = tmp_path / "probe.html"
    probe.write_text(
        page.read_text().replace(
            "</body>",
            "<script>document.body.setAttribute('data-broken', [...document.images].filter(i => !i.complete ||"
            " i.naturalWidth === 0).length); document.body.setAttribute('data-students',"
            " document.querySelectorAll('details').length);</script></body>",
        )
    )
    run = subprocess.run(
        [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--dump-dom", probe.as_uri()],
        capture_output=True,
        text=True,
        timeout=120,
    )
    dom = run.stdout
    assert 'data-broken="0"' in dom and f'data-students="{len(CLASS) + 1}"' in dom, run.stderr[-2000:]
