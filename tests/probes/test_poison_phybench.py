"""The poisoning probe on real PHYBench problems whose solution and answer spell a symbol two ways
(``z_{0}^{2}`` / ``z_0^{2}``, ``\\varepsilon_{0}`` / ``\\varepsilon_0``), or square a symbol with a
coefficient (``3R^{2}``): the implied answer is what a model carrying the error writes, and a
scripted run that carries, repairs or silently fixes the error is classified as what it did.

The carried answers below were written by hand from the dataset's answers, in a spelling of their
own, as a model that carries the injected error through would box them.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from physeval import RunConfig, run_task
from physeval.grading.symbolic import grade_symbolic
from physeval.probes.poison import poison_items
from physeval.store import RunStore
from physeval.tasks.phybench_data import load_phybench
from physeval.tasks.registry import get_task
from physeval.testing import Reply, ScriptedModel

DATA = Path(__file__).resolve().parents[2] / ".." / "shared" / "data" / "phybench" / "PHYBench-fullques_v1.json"
pytestmark = pytest.mark.skipif(not DATA.exists(), reason="PHYBench data not in ../shared/data")

# (problem, kind) -> (the rule's base or constant as the solution writes it, the carried answer by hand)
CARRIED = {
    ("10", "delete_constant"): (
        r"\varepsilon_{0}",
        r"\frac{qb}{2\pi}\Big[((a+x)^{2}+(z-c)^{2}+b^{2})^{-3/2}-((x-a)^{2}+(z-c)^{2}+b^{2})^{-3/2}\Big]"),
    ("89", "delete_constant"): (
        r"\varepsilon_{0}",
        r"3\omega^{2}-\frac{N e q_{0}}{2\pi m H r_{0}^{2}}\left(\frac{(2k m_{N} r_{0}^{2}-1)e^{m_{N}k r_{0}^{2}}+1}"
        r"{e^{m_{N}k R^{2}}-1}-\frac{(2k m_{e} r_{0}^{2}-1)e^{m_{e}k r_{0}^{2}}+1}{e^{m_{e}k R^{2}}-1}\right)"
        r"+\frac{k N V\omega^{2}}{\pi m H}\left(\frac{(2k m_{N} r_{0}^{2}+1)e^{m_{N}k r_{0}^{2}}}{e^{m_{N}k R^{2}}-1}"
        r"m_{N}^{2}+\frac{(2k m_{c} r_{0}^{2}+1)e^{m_{c}k r_{0}^{2}}}{e^{m_{c}k R^{2}}-1}m_{c}^{2}\right)"),
    ("89", "remove_square"): (
        "r_{0}",  # the base of k r_{0}^2, not its coefficient k
        r"3\omega^2-\frac{N e q_0}{2\pi m H\epsilon_0 r_0}\left(\frac{(2k m_N r_0-1)e^{m_N k r_0}+1}"
        r"{e^{m_N k R^2}-1}-\frac{(2k m_e r_0-1)e^{m_e k r_0}+1}{e^{m_e k R^2}-1}\right)"
        r"+\frac{k N V\omega^2}{\pi m H}\left(\frac{(2k m_N r_0+1)e^{m_N k r_0}}{e^{m_N k R^2}-1}m_N^2"
        r"+\frac{(2k m_c r_0+1)e^{m_c k r_0}}{e^{m_c k R^2}-1}m_c^2\right)"),
    ("204", "delete_constant"): (
        r"\varepsilon_{0}", r"\sqrt{\frac{Qq}{2\pi m}\cdot\frac{R^{2}-2l^{2}}{(R^{2}+l^{2})^{5/2}}}"),
    ("228", "remove_square"): (
        r"\omega_{2}",
        r"\frac{3\sin(\theta_{1}-\theta_{2})\left[2g\cos\theta_{1}+2l_{1}\omega_{1}^{2}+l_{2}\omega_{2}"
        r"\cos(\theta_{1}-\theta_{2})\right]}{l_{2}\left[1+3\sin^{2}(\theta_{1}-\theta_{2})\right]}"),
    ("228", "delete_constant"): (
        "g",
        r"\frac{3\sin(\theta_1-\theta_2)\,[2\cos\theta_1+2l_1\omega_1^2+l_2\omega_2^2\cos(\theta_1-\theta_2)]}"
        r"{l_2\,[1+3\sin^2(\theta_1-\theta_2)]}"),
    ("412", "delete_constant"): (
        "g",
        r"2\pi\sqrt{\frac{\frac{1}{(z_0^2+R^2)^{3/2}}\left(\frac{\mu_0 n I\pi r^2}{2L}\left(1-\frac{z_0}"
        r"{\sqrt{z_0^2+R^2}}\right)-I_0\right)}{\left(\frac{\mu_0 n I\pi r^2}{2L}-I_0\right)\frac{3z_0}"
        r"{(z_0^2+R^2)^{5/2}}-\frac{\mu_0 n I\pi r^2}{2L}\frac{3z_0^2-R^2}{(z_0^2+R^2)^3}}}"),
    ("412", "remove_square"): (
        "z_{0}",  # the answer writes both z_0^{2} and z_{0}^{2}: every one is unsquared
        r"2\pi\sqrt{\frac{\frac{1}{(z_{0}+R^2)^{3/2}}\left(\frac{\mu_0 n I\pi r^2}{2L}\left(1-\frac{z_{0}}"
        r"{\sqrt{z_{0}+R^2}}\right)-I_0\right)}{g\left[\left(\frac{\mu_0 n I\pi r^2}{2L}-I_0\right)\frac{3z_0}"
        r"{(z_0+R^2)^{5/2}}-\frac{\mu_0 n I\pi r^2}{2L}\frac{3z_0-R^2}{(z_0+R^2)^3}\right]}}"),
    ("493", "delete_constant"): (
        r"\mu_0", r"2\pi\sqrt{\frac{2M(h^2+R^2)^{7/2}}{m I(2h^4+2R^4-11R^2h^2)}}"),
    ("636", "remove_square"): (
        "R",  # the base of 3R^{2}, not "3R"
        r"-\frac{3\pi R}{2r_{0}^{2}}\sqrt{\frac{4\pi\epsilon_{0}m r_{0}^{3}}{nQq}}"),
    ("636", "delete_constant"): (
        r"\varepsilon_{0}", r"-\frac{3\pi R^{2}}{2r_{0}^{2}}\sqrt{\frac{4\pi m r_{0}^{3}}{nQq}}"),
    ("649", "delete_constant"): (
        r"\mu_{0}", r"\frac{2\pi}{R^{2}}\sqrt{\frac{m(R^{2}-2l^{2})\sqrt{R^{2}+l^{2}}}{\pi\epsilon_{0}Qq}}"),
    ("670", "delete_constant"): (r"\varepsilon_{0}", r"\sqrt{\frac{kT}{2e^{2}n_{0}}}"),
    ("702", "delete_constant"): (r"\varepsilon_{0}", r"\sqrt{\frac{2q\lambda}{\pi a^{2}m}}"),
}

# the remove_square items whose squared symbol is not in the answer: the model repairs or ignores the error
REPAIRED = {("10", "remove_square"), ("204", "remove_square"), ("493", "remove_square")}
SILENT = {("649", "remove_square"), ("670", "remove_square"), ("702", "remove_square")}
PROBLEMS = sorted({pid for pid, _ in CARRIED}, key=int)


@pytest.fixture(scope="module")
def items() -> dict[tuple[str, str], object]:
    problems = [p for p in load_phybench(DATA) if p.id in PROBLEMS]
    out = {}
    for problem in problems:
        for item in poison_items(problem, ("remove_square", "delete_constant")):
            out[(item.id, item.variant)] = item
    return out


def _same(answer: str, reference: str) -> bool | None:
    return grade_symbolic(f"\\boxed{{{answer}}}", reference).equivalent


@pytest.mark.parametrize("key", sorted(CARRIED, key=lambda k: (int(k[0]), k[1])), ids=lambda k: "-".join(k))
def test_the_implied_answer_is_the_carried_one_whatever_the_spelling(items: dict, key: tuple[str, str]) -> None:
    token, by_hand = CARRIED[key]
    item = items[key]
    (edit,) = item.meta["perturbations"]
    assert edit["token"] == token
    assert item.meta["implied_method"] == "carried", item.meta["implied_reason"]
    assert _same(by_hand, item.meta["implied_answer"]) is True
    assert _same(by_hand, item.answer) is False


def test_a_scripted_run_is_classified_as_what_the_model_did(tmp_path: Path, items: dict) -> None:
    chosen = {**{k: "carry" for k in CARRIED}, **{k: "repair" for k in REPAIRED}, **{k: "silent" for k in SILENT}}
    assert set(chosen) == set(items)  # every item of these problems has a behaviour
    replies: dict[str, str] = {}
    for key, behaviour in chosen.items():
        item = items[key]
        if behaviour == "carry":
            replies[item.meta["partial_solution"]] = f"Carrying on with that result, \\boxed{{{CARRIED[key][1]}}}"
        elif behaviour == "repair":
            replies[item.meta["partial_solution"]] = ("The last step has a mistake: a square was lost and it "
                                                      f"should be kept. Redoing it, \\boxed{{{item.answer.strip()}}}")
        else:
            replies[item.meta["partial_solution"]] = f"Finishing the derivation, \\boxed{{{item.answer.strip()}}}"

    def script(request):  # type: ignore[no-untyped-def]
        return Reply.text(next(v for k, v in replies.items() if k in request.prompt))

    task = get_task("phybench-poison", data=str(DATA), perturbations="remove_square,delete_constant",
                    grading_processes=0)
    problems = list(items.values())
    model = ScriptedModel(script, name="poison-phybench")
    asyncio.run(run_task(task, model, tmp_path / "run", RunConfig(preflight=False), problems=problems,
                         show_progress=False))
    rows = {(r.problem_id, r.variant): r for r in RunStore(tmp_path / "run").rows()}
    expected = {"carry": "superficial", "repair": "genuine", "silent": "pseudo_genuine"}
    labels = {key: rows[key].grade["classification"] for key in chosen}
    assert labels == {key: expected[b] for key, b in chosen.items()}
