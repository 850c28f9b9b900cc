"""What an answer states beyond its right side: other quantities, other relations, several results.

Every pair marked "false accept" was graded correct before (an outside review, by mpmath at 50
digits: the answer and the reference differ); the compat mode keeps the pipeline's verdict.
"""

from __future__ import annotations

import pytest

from physeval import grade_symbolic
from physeval.grading.eed import eed
from physeval.grading.eed_relations import GIVEN_FIXED, answer_parts, is_comment

# (reference, answer): the answer's right side equals the reference's, its left side names another quantity
ANOTHER_QUANTITY = [
    (r"\omega = \sqrt{\frac{k}{m}}", r"\omega t = \sqrt{\frac{k}{m}}"),
    (r"v = \sqrt{2gh}", r"mv = \sqrt{2gh}"),
    (r"v = \sqrt{2gh}", r"\frac{v_f}{2} = \sqrt{2gh}"),
    (r"T = mg", r"2T_1 = mg"),
    (r"\tan\theta = \frac{v^2}{gR}", r"\alpha = \frac{v^2}{gR}"),
    (r"\tan\theta = \frac{v^2}{gR}", r"\sin\alpha = \frac{v^2}{gR}"),
    (r"\sin\theta_c = \frac{n_2}{n_1}", r"\theta = \frac{n_2}{n_1}"),
    (r"\sin\theta = \frac{2}{3}", r"\cos\phi = \frac{2}{3}"),
    (r"\omega=\sqrt{\frac{k}{m}}", r"\omega_0^2 = \sqrt{\frac{k}{m}}"),
    (r"T^2 = \frac{4\pi^2 m}{k}", r"T_0 = \frac{4\pi^2 m}{k}"),
    (r"\frac{1}{\lambda} = \frac{h}{p}", r"\lambda' = \frac{h}{p}"),
    (r"\frac{1}{\lambda} = \frac{h}{p}", r"k = \frac{h}{p}"),
    (r"\frac{1}{R} = \frac{1}{R_1}+\frac{1}{R_2}", r"R_{eq} = \frac{1}{R_1}+\frac{1}{R_2}"),
    # a second review: a name the right sides use, a derivative, a differential, another argument
    (r"v = \sqrt{2gh}", r"g = \sqrt{2gh}"),
    (r"v = g t", r"t = g t"),
    (r"v_2 = 2v_1", r"v_1 = 2v_1"),
    (r"\tan\theta = \frac{v^2}{gr}", r"\tan r = \frac{v^2}{gr}"),
    (r"v = \sqrt{2gh}", r"\dot{v} = \sqrt{2gh}"),
    (r"x = -\omega^2 A", r"\ddot{x} = -\omega^2 A"),
    (r"v = g t", r"dv = g t"),
    (r"x(t) = A\cos(\omega t)", r"x(0) = A\cos(\omega t)"),
    (r"\Delta y = \frac{g t^2}{2}", r"y = \frac{g t^2}{2}"),  # a change is not the position
]


@pytest.mark.parametrize(("reference", "answer"), ANOTHER_QUANTITY)
def test_a_left_side_naming_another_quantity_is_wrong(reference: str, answer: str) -> None:
    result = eed(reference, answer)
    assert result.outcome == "wrong" and result.score < 60 and "left sides differ" in result.reason, result
    assert eed(reference, answer, compat="phybench").outcome == "correct"  # the pipeline reads right sides only


@pytest.mark.parametrize(("reference", "answer"), [
    (r"v = \sqrt{2gh}", r"v_f = \sqrt{2gh}"),  # one symbol each: two names of the asked quantity
    (r"x = A\cos(\omega t)", r"x(t) = A\cos(\omega t)"),  # a function of its arguments
    (r"p(\theta) = p_0\cos\theta", r"p = p_0\cos\theta"),
    (r"\tan\theta = \frac{v^2}{gR}", r"\tan\alpha = \frac{v^2}{gR}"),  # the same quantity of another angle's name
    (r"\omega^2 = \frac{k}{m}", r"\omega_0^2 = \frac{k}{m}"),
    (r"\frac{1}{\lambda} = \frac{p}{h}", r"\lambda^{-1} = \frac{p}{h}"),  # equivalent left sides
    (r"\[ v = \sqrt{2gh} \]", r"v_0 = \sqrt{2gh}"),  # display delimiters are not part of the left side
    (r"v = \sqrt{2gh}", r"\sqrt{2gh} = v"),  # written the other way round
])
def test_a_naming_or_an_equivalent_left_side_stays_correct(reference: str, answer: str) -> None:
    assert eed(reference, answer).outcome == "correct", eed(reference, answer)


@pytest.mark.parametrize(("reference", "answer"), [
    (r"T = mg", r"T \neq mg"),
    (r"T = mg", r"T > mg"),
    (r"v_{\min} = \sqrt{gR}", r"v \leq \sqrt{gR}"),
    (r"T = \sqrt{\frac{m}{k}}", r"T \propto \sqrt{\frac{m}{k}}"),
    (r"mg", r"T \neq mg"),  # a bare reference: \neq still contradicts it
    (r"0", r"v > 0"),  # any other relation against a bare reference (a second review)
    (r"\sqrt{2gh}", r"v \leq \sqrt{2gh}"),
    (r"v = \sqrt{2gh}", r"v \not= \sqrt{2gh}"),  # a negated relation
    (r"v = \sqrt{2gh}", r"v \not\approx \sqrt{2gh}"),
])
def test_another_kind_of_relation_is_wrong_and_scores_zero(reference: str, answer: str) -> None:
    result = eed(reference, answer)
    assert (result.outcome, result.score) == ("wrong", 0.0) and "another kind of relation" in result.reason, result


@pytest.mark.parametrize(("reference", "answer"), [
    (r"v < \sqrt{2gh}", r"2v < \sqrt{2gh}"),  # false accepts: an inequality's left side was not read
    (r"v \leq \sqrt{2gh}", r"v^2 \leq \sqrt{2gh}"),
    (r"v \propto \sqrt{h}", r"v^2 \propto \sqrt{h}"),
])
def test_an_inequality_stating_another_quantity_is_wrong(reference: str, answer: str) -> None:
    result = eed(reference, answer)
    assert result.outcome == "wrong" and "left sides differ" in result.reason, result


@pytest.mark.parametrize(("reference", "answer", "outcome"), [
    (r"v < \sqrt{2gh}", r"\sqrt{2gh} > v", "correct"),  # 'wrong' before: its right side v was graded
    (r"v \leq \sqrt{2gh}", r"\sqrt{2gh} \geq v", "correct"),
    (r"v < \sqrt{2gh}", r"\sqrt{2gh} \gt v", "correct"),
    (r"v \propto \sqrt{h}", r"\sqrt{h} \propto v", "correct"),
    (r"T \neq mg", r"mg \neq T", "correct"),
    (r"v < \sqrt{2gh}", r"\sqrt{2gh} < v", "wrong"),  # turned round, it says v > sqrt(2gh)
    (r"v \leq \sqrt{2gh}", r"\sqrt{2gh} > v", "wrong"),  # strict for non-strict
    (r"v = \sqrt{2gh}", r"\sqrt{2gh} > v", "wrong"),
    (r"v < \sqrt{2gh}", r"\sqrt{2gh} \not> v", "wrong"),  # a negated relation is not turned round
])
def test_a_relation_written_the_other_way_round_faces_the_reference(reference: str, answer: str, outcome: str) -> None:
    assert eed(reference, answer).outcome == outcome, eed(reference, answer)


def test_approximately_equal_is_an_equality() -> None:
    assert eed(r"E = mgh", r"E \approx mgh").outcome == "correct"


def test_several_results_grade_the_one_the_reference_asks_for() -> None:
    assert eed(r"v_1 = 0", r"v_1 = u,\ v_2 = 0").outcome == "wrong"  # false accept: the last right side was 0
    assert eed(r"T_1 = mg", r"T_1 = 2mg,\ T_2 = mg").outcome == "wrong"  # false accept
    assert eed(r"v_1 = 0", r"v_1 = 0,\ v_2 = u").outcome == "correct"
    assert eed(r"T_1 = 2mg", r"T_2 = mg;\ T_1 = 2mg").outcome == "correct"
    assert eed(r"T_1 = 2mg", r"T_2 = mg \quad T_1 = 2mg").outcome == "correct"
    listing = eed("ab", "a, b")  # false accept: the comma was deleted, a b
    assert listing.outcome == "wrong" and "2 results" in listing.reason
    assert eed(r"x = 1", r"y = 1,\ z = 1").outcome == "wrong"  # none states x
    assert eed(r"v_1 = 0", r"v_1 = 0,\ \text{or } v_1 = 5").outcome == "wrong"  # alternatives: two state v_1
    # a second review: a second value, a hedge, a relation on the same quantity, another spelling of it
    for answer in (r"v = \sqrt{2gh}, \sqrt{gh}", r"v = \sqrt{2gh} \text{ or zero}", r"v = \sqrt{2gh}，或为零",
                   r"v = \sqrt{2gh}, v < \sqrt{gh}", r"\mathrm{v} = \sqrt{gh}, v = \sqrt{2gh}"):
        assert eed(r"v = \sqrt{2gh}", answer).outcome == "wrong", answer


def test_second_values_hidden_by_words_arrows_spellings_or_signs_are_seen() -> None:
    # a second review: each was 'correct'
    for answer in (r"v = \sqrt{2gh},\ v_{} = \sqrt{gh}", r"v = \pm\sqrt{2gh}",
                   r"v = \sqrt{gh} \text{, i.e. } v = \sqrt{2gh}", r"v = \sqrt{gh} \Rightarrow v = \sqrt{2gh}",
                   r"\begin{aligned} v &= \sqrt{gh} \\ &= \sqrt{2gh} \end{aligned}"):
        assert eed(r"v = \sqrt{2gh}", answer).outcome == "wrong", answer
    assert eed(r"v = g\,t", r"\mathrm{d}v = g\,t").outcome == "wrong"  # a differential, not a name
    assert eed(r"v = \sqrt{2gh}", r"v = \sqrt{2gh} \text{ is wrong}").outcome == "wrong"
    for celsius in (r"T = 30^\circ\text{C}", r"T = 30^\circ \text{C}", r"T = 30°C", r"T = 30\degree\text{C}",
                    r"T = 30\degree \text{F}", r"T = 30^\circ\,\text{C}", r"T = 30^\circ~\text{K}"):
        # a temperature, not pi/6 (\degree\text{C}, ^\circ\,\text{C} and ^\circ \text{K} were 'correct')
        assert eed(r"T = \frac{\pi}{6}", celsius).outcome != "correct", celsius
    # the degree mark the normaliser reads is the one the comment rules read: \degree too
    assert answer_parts(r"30\degree\,\text{above the horizontal}") == [r"30\degree", r"\text{above the horizontal}"]
    assert answer_parts(r"30\degree \text{C}") == [r"30\degree \text{C}"]
    # and what stays right: a step before the result, a middle name, words and units beside it, a shared sign
    for answer in (r"v^2 = 2gh \Rightarrow v = \sqrt{2gh}", r"u = v = \sqrt{2gh}", r"v = \sqrt{2gh} \text{ m/s}",
                   r"\begin{aligned} v &= \sqrt{2gh} \end{aligned}"):
        assert eed(r"v = \sqrt{2gh}", answer).outcome == "correct", answer
    assert eed("10", r"10\,\text{m}").outcome == "correct"
    assert eed(r"E_\text{k} = \frac{1}{2}mv^2", r"E_\text{k} = \frac{mv^2}{2}").outcome == "correct"
    assert eed(r"x = \pm a", r"x = \pm a").outcome == "correct"


def test_every_link_of_a_chain_counts() -> None:
    chain = eed(r"v = \sqrt{2gh}", r"v = 2gh = \sqrt{2gh}")  # only the last link was read
    assert chain.outcome == "wrong" and "link of the chain" in chain.reason
    assert eed(r"v = \sqrt{2gh}", r"v = \sqrt{gh \cdot 2} = \sqrt{2gh}").outcome == "correct"
    assert eed("ab", "a, b", compat="phybench").outcome == "correct"


def test_one_result_with_separators_inside_it_or_words_beside_it_is_one_result() -> None:
    assert answer_parts(r"\max\{a,b\}") == [r"\max\{a,b\}"]
    assert answer_parts(r"f(a, b)") == ["f(a, b)"]
    assert answer_parts(r"\left\{a, b\right\}") == [r"\left\{a, b\right\}"]
    assert answer_parts(r"12,000\,m") == [r"12,000\,m"]  # a thousands separator
    assert [p for p in answer_parts(r"\sqrt{2gh} \quad (\text{upward})") if not is_comment(p)] == [r"\sqrt{2gh}"]
    assert is_comment(r"(\text{upward})") and not is_comment(r"\sqrt{2gh}")
    assert answer_parts(r"mgh,") == ["mgh"]
    assert answer_parts(r"a, b; c \text{ and } d") == ["a", "b", "c", "d"]
    assert answer_parts(r"a \text{and} b") == ["a", "b"]
    assert eed(r"\sqrt{2gh}", r"\sqrt{2gh} \quad (\text{upward})").outcome == "correct"
    assert eed("12000m", "12,000 m").outcome == "correct"
    assert is_comment("方向竖直向上")  # a comment in Chinese
    assert eed(r"\sqrt{2gh}", r"\sqrt{2gh}，方向竖直向上").outcome == "correct"  # was unparseable
    assert eed("ab", "a，b").outcome == "wrong"


def test_the_checks_reach_grade_symbolic() -> None:
    wrong = grade_symbolic(r"so \boxed{\omega t = \sqrt{\frac{k}{m}}}", r"\omega = \sqrt{\frac{k}{m}}")
    assert wrong.correct is False and "left sides differ" in wrong.reason
    right = grade_symbolic(r"so \boxed{\sqrt{\frac{k}{m}} = \omega}", r"\omega = \sqrt{\frac{k}{m}}")
    assert right.correct is True


@pytest.mark.parametrize(("reference", "answer", "factor"), [
    (r"T = \frac{mg}{2}", "2T = mg", "2"),  # 'wrong' before: the right sides mg and mg/2 differ
    ("T = mg", "T - mg = 0", "1"),
    ("T = mg", "mg - T = 0", "-1"),
    (r"E_k = \frac{1}{2}mv^2", "2E_k = mv^2", "2"),
    (r"x = \frac{v^2}{2a}", r"\frac{2ax}{v^2} = 1", "2*a/v**2"),  # a product of positive quantities
    (r"T = \frac{mg}{2}", "mg = 2T", "2"),  # the reference's quantity on the right (an outside review)
    (r"v = \sqrt{2gh}", r"\frac{v}{\sqrt{2gh}} = 1", "sqrt(2)/(2*sqrt(g)*sqrt(h))"),  # radicals
    ("T = mg", r"T e^{x} = mg e^{x}", "exp(x)"),  # a positive number to a real power
])
def test_the_reference_equation_rearranged_is_correct(reference: str, answer: str, factor: str) -> None:
    result = eed(reference, answer)
    assert result.outcome == "correct" and result.reason.endswith(f"times {factor}"), result
    assert eed(reference, answer, compat="phybench").outcome != "correct"  # the pipeline compares right sides


@pytest.mark.parametrize(("reference", "answer", "power"), [
    (r"\omega=\sqrt{\frac{k}{m}}", r"\omega^2 = \frac{k}{m}", "2"),  # wrong before (an outside review)
    (r"T = 2\pi\sqrt{\frac{l}{g}}", r"T^2 = \frac{4\pi^2 l}{g}", "2"),
    (r"T = 2\pi\sqrt{\frac{l}{g}}", r"\frac{1}{T} = \frac{1}{2\pi}\sqrt{\frac{g}{l}}", "-1"),
    (r"T^2 = \frac{4\pi^2 l}{g}", r"T = 2\pi\sqrt{\frac{l}{g}}", "1/2"),
])
def test_the_reference_equation_raised_to_a_power_is_correct(reference: str, answer: str, power: str) -> None:
    result = eed(reference, answer)
    assert result.outcome == "correct" and result.reason.endswith(f"to the power {power}"), result


@pytest.mark.parametrize(("reference", "answer"), [
    ("T = mg", "2T = 3mg"),
    ("T = mg", "T = mg + T"),
    (r"x = a - b", r"x^2 = (a - b)^2"),  # a - b may be negative: x = |a - b| is not x = a - b
    (r"\sin\theta = \frac{2}{3}", r"\sin^2\theta = \frac{4}{9}"),  # sin may be negative
    (r"x = -\sqrt{a}", r"x^2 = a"),
    (r"\omega=\sqrt{\frac{k}{m}}", r"\omega^2 = -\frac{k}{m}"),
    (r"v = \sqrt{2gh}", r"v^2 = gh"),
    ("T = mg", "0 = 0"),
    ("x = x", "y = y"),
    ("T = mg", r"T - mg = \epsilon"),
    ("T = mg", r"m = \frac{T}{g}"),  # the same equation solved for another quantity does not give T
    ("T = mg", r"g = \frac{T}{m}"),
    (r"v = \sqrt{2gh}", r"\frac{v}{\sqrt{gh}} = 1"),
    (r"a = \frac{F}{m}", "F = ma"),
])
def test_other_equations_stay_misses(reference: str, answer: str) -> None:
    assert eed(reference, answer).outcome != "correct"


@pytest.mark.parametrize(("reference", "answer", "why"), [  # each 'wrong' before (a third outside review)
    (r"v < \sqrt{2gh}", r"v - \sqrt{2gh} < 0", "times 1"),
    (r"v < \sqrt{2gh}", r"\sqrt{2gh} - v > 0", "times -1"),  # a negative factor mirrors the order
    (r"v < \sqrt{2gh}", r"-v > -\sqrt{2gh}", "times -1"),
    (r"v < \sqrt{2gh}", r"0 > v - \sqrt{2gh}", "times 1"),  # turned round
    (r"v < \sqrt{2gh}", r"\frac{v}{\sqrt{2gh}} < 1", "times sqrt(2)/(2*sqrt(g)*sqrt(h))"),
    (r"x > a - b", r"a - x < b", "times -1"),
    (r"x < \frac{a}{b}", r"\frac{1}{x} > \frac{b}{a}", "times -b/(a*x)"),
    (r"v < \sqrt{2gh}", r"v^2 < 2gh", "to the power 2"),
    (r"v < \sqrt{2gh}", r"2gh > v^2", "to the power 2"),
    (r"v \leq \sqrt{2gh}", r"v^2 \leq 2gh", "to the power 2"),
    (r"v < \sqrt{2gh}", r"v^{-2} > \frac{1}{2gh}", "to the power -2"),  # a negative power mirrors it
])
def test_the_reference_inequality_rearranged_is_correct(reference: str, answer: str, why: str) -> None:
    result = eed(reference, answer)
    assert result.outcome == "correct" and "inequality" in result.reason and result.reason.endswith(why), result


@pytest.mark.parametrize(("reference", "answer"), [
    (r"v < \sqrt{2gh}", r"v^2 > 2gh"),
    (r"v < \sqrt{2gh}", r"v^2 \leq 2gh"),  # not strict: another relation
    (r"v < \sqrt{2gh}", r"2v > 2\sqrt{2gh}"),
    (r"v < \sqrt{2gh}", r"v - \sqrt{2gh} > 0"),
    (r"v < \sqrt{2gh}", r"-v < -\sqrt{2gh}"),  # a negative factor without the mirror
    (r"v < \sqrt{2gh}", r"v^{-2} < \frac{1}{2gh}"),
    (r"v < \sqrt{2gh}", r"v^2 < gh"),
    (r"v < \sqrt{2gh}", r"(v - \sqrt{2gh})^2 < 0"),
    (r"v < \sqrt{2gh}", r"(v - \sqrt{2gh})(v - \sqrt{gh}) < 0"),
    (r"v < \sqrt{2gh}", r"v^2 = 2gh"),  # an equation for an inequality, and the other way round
    (r"v = \sqrt{2gh}", r"v^2 < 2gh"),
    (r"x < a - b", r"x^2 < (a - b)^2"),  # a - b may be negative
    (r"v < \sqrt{2gh}", r"h > \frac{v^2}{2g}"),  # solved for another quantity, as for equations
    (r"v < \sqrt{2gh}", r"v \not> \sqrt{2gh}"),
    (r"v < \sqrt{2gh}", r"e^{i\pi} v < e^{i\pi}\sqrt{2gh}"),  # i the imaginary unit: e^{i pi} = -1
    (r"v < \sqrt{2gh}", r"e^{ix} v < e^{ix}\sqrt{2gh}"),
    (r"x < \frac{a}{b}", r"x i^{2} < \frac{a}{b} i^2"),
])
def test_other_inequalities_stay_misses(reference: str, answer: str) -> None:
    assert eed(reference, answer).outcome != "correct"


def test_a_cross_product_in_another_order_is_not_accepted() -> None:
    # the pipeline's \times between letters is a commutative symbol: v x B equalled B x v (a second review)
    swapped = eed(r"F = q \vec{v}\times\vec{B}", r"F = q \vec{B}\times\vec{v}")
    assert swapped.outcome == "undecided" and "cross product" in swapped.reason
    assert eed(r"F = q \vec{v}\times\vec{B}", r"F = q\,\vec{v}\times\vec{B}").outcome == "correct"


# A third outside review: each pair was graded correct, and each states something else
NEGATED_ORDER = [r"v \not< \sqrt{2gh}", r"v \not> \sqrt{2gh}", r"v \not\leq \sqrt{2gh}", r"v \not\geq \sqrt{2gh}",
                 r"v \not\lesssim \sqrt{2gh}", r"v \not\propto \sqrt{2gh}"]


@pytest.mark.parametrize("answer", NEGATED_ORDER)
def test_a_negated_order_is_its_complement_not_an_inequation(answer: str) -> None:
    assert eed(r"v \neq \sqrt{2gh}", answer).outcome == "wrong", eed(r"v \neq \sqrt{2gh}", answer)


def test_a_negated_order_equals_its_complement() -> None:
    assert eed(r"v \geq \sqrt{2gh}", r"v \not< \sqrt{2gh}").outcome == "correct"
    assert eed(r"v > \sqrt{2gh}", r"v \not\leq \sqrt{2gh}").outcome == "correct"


@pytest.mark.parametrize("answer", [
    r"(0.1+0.2-0.3)v = (0.1+0.2-0.3)\sqrt{2gh}",  # 0 = 0 in exact decimals: the factor was 5.55e-17
    r"(0.1+0.2-0.3)\sqrt{2gh} = (0.1+0.2-0.3)v",
    r"(0.3-0.1-0.2)v = (0.3-0.1-0.2)\sqrt{2gh}",
])
def test_a_factor_of_decimals_that_cancel_is_zero(answer: str) -> None:
    assert eed(r"v = \sqrt{2gh}", answer).outcome != "correct"


@pytest.mark.parametrize("answer", [
    r"v = \sqrt{2gh} \quad v^2 = gh", r"v = \sqrt{2gh} \qquad v^2 = gh", r"v = \sqrt{2gh},\; v^2 = gh",
])
def test_a_second_result_for_the_quantity_is_wrong(answer: str) -> None:
    result = eed(r"v = \sqrt{2gh}", answer)
    assert result.outcome == "wrong" and "second result" in result.reason, result


@pytest.mark.parametrize("answer", [r"v(2h) = \sqrt{2gh}", r"v(4h) = \sqrt{2gh}", r"v(h/2) = \sqrt{2gh}"])
def test_the_quantity_at_a_point_is_not_its_name(answer: str) -> None:
    assert eed(r"v = \sqrt{2gh}", answer).outcome == "wrong"


@pytest.mark.parametrize(("reference", "answer"), [
    (r"\theta = 30^\circ", r"\theta = 30^\circ \text{ less than a right angle}"),
    (r"\theta = 30^\circ", r"\theta = 30^\circ\,(\text{less than a right angle})"),
    (r"\theta = 30^\circ", r"\theta = 30^\circ \text{ per second}"),
    (r"\theta = 30^\circ", r"\theta = 30^\circ \text{ times two}"),
    (r"\theta = 30^\circ", r"\theta = 30^\circ \text{ twice}"),
    (r"\theta = 30^\circ", r"\theta = 30^\circ \text{ in radians}"),
    (r"T = 30^\circ\text{C}", r"T = 30^\circ\text{C} \text{ above room temperature}"),
    (r"v = \sqrt{2gh}", r"v = \sqrt{2gh}\text{ squared}"),  # accepted since words were first read as comments
    (r"v = \sqrt{2gh}", r"v = \sqrt{2gh}\text{ at least}"),
    (r"v = \sqrt{2gh}", r"v = \sqrt{2gh}\,\text{at most}"),
    (r"v = \sqrt{2gh}", r"v = \sqrt{2gh}\text{ divided by two}"),
    (r"v = \sqrt{2gh}", r"v = \sqrt{2gh}\text{ (minimum)}"),
    (r"v = \sqrt{2gh}", r"v = \sqrt{2gh} \text{ (upper bound)}"),
    (r"v < \sqrt{2gh}", r"v < \sqrt{2gh}\text{ (reversed)}"),
    (r"v = \sqrt{2gh}", r"v = \sqrt{2gh}，两倍"),
])
def test_words_that_may_change_the_result_leave_it_undecided(reference: str, answer: str) -> None:
    result = eed(reference, answer)
    assert result.outcome == "undecided" and "may change it" in result.reason, result


@pytest.mark.parametrize("answer", [
    r"\theta = 30^\circ \text{ above the horizontal}", r"\theta = 30^\circ\,(\text{above the horizontal})",
    r"\theta = 30^\circ \text{ from the vertical}", r"\theta = 30^\circ \quad (\text{counterclockwise})",
])
def test_words_of_direction_beside_the_result_are_a_comment(answer: str) -> None:
    assert eed(r"\theta = \frac{\pi}{6}", answer).outcome == "correct", eed(r"\theta = \frac{\pi}{6}", answer)


@pytest.mark.parametrize(("reference", "answer"), [  # each 'correct' before (a fourth outside review)
    (r"v < \sqrt{2gh}", r"v < \sqrt{2gh},\ h = 0"),  # the bound becomes v < 0
    (r"v < \sqrt{2gh}", r"v < \sqrt{2gh} \text{ and } h = 0"),
    (r"v < \sqrt{2gh}", r"v < \sqrt{2gh},\ g > h"),
    (r"v < \sqrt{2gh}", r"v < \sqrt{2gh} \quad (g = 2h)"),  # in brackets too
    (r"v < \sqrt{2gh}", r"v < \sqrt{2gh} \quad \left(h > 1\right)"),
    (r"T \geq mg", r"T \geq mg \text{ and } g > T"),
    (r"x > a - b", r"x > a - b \quad (b > a)"),
    (r"\lambda > \frac{h}{p}", r"\lambda > \frac{h}{p},\ p = h"),
    (r"v = \sqrt{2gh}", r"v = \sqrt{2gh},\ g = h"),
])
def test_another_result_that_fixes_a_given_is_wrong(reference: str, answer: str) -> None:
    result = eed(reference, answer)
    assert result.outcome == "wrong" and result.reason.startswith(GIVEN_FIXED), result


def test_results_for_other_quantities_written_in_the_givens_stay_right() -> None:
    assert eed(r"v = \sqrt{2gh}", r"v = \sqrt{2gh},\ t = \sqrt{\frac{2h}{g}}").outcome == "correct"
    assert eed(r"T_1 = 2mg", r"T_1 = 2mg, \quad T_2 = mg").outcome == "correct"


@pytest.mark.parametrize("answer", [r"T \geq g \geq mg", r"T \geq m \geq mg"])
def test_a_middle_link_that_is_a_letter_of_the_chain_is_a_value_not_a_name(answer: str) -> None:
    result = eed(r"T \geq mg", answer)  # 'correct' before: g and m are letters of mg, not new names
    assert result.outcome == "wrong" and "link of the chain" in result.reason, result
    assert eed(r"x > a - b", r"x > a > a - b").outcome == "wrong"
    assert eed(r"v = \sqrt{2gh}", r"v = u = \sqrt{2gh}").outcome == "correct"  # u is a name of its own
