"""The words a comment beside a result may hold without changing it.

A model often writes words next to its result: ``\\sqrt{2gh} \\quad (\\text{upward})``,
``30^\\circ \\text{ above the horizontal}``, ``方向竖直向上``. Read as a comment, the result is graded
alone. But words can change the value as surely as symbols: ``\\text{ squared}``, ``\\text{ at
least}``, ``\\text{ less than a right angle}``, ``\\text{ per second}``, ``两倍``. An outside review
found each of those accepted as a comment. So a comment is read only when every Latin word in it
is one of :data:`COMMENT_WORDS` (directions, orientations, units, the small words between them)
and it holds none of :data:`_CJK_VALUE_WORDS`; any other words leave the verdict undecided. A
vocabulary that lets through is kept small on purpose: a word missing from it costs an
``undecided``, a word wrongly in it costs a false accept.
"""

from __future__ import annotations

import re

__all__ = ["COMMENT_WORDS", "unread_words"]

COMMENT_WORDS = frozenset("""
a an the of to from in into on onto at along toward towards away with relative respect by and
is it its this that direction directed pointing points pointed
up upward upwards down downward downwards left leftward leftwards right rightward rightwards
forward forwards backward backwards north south east west northeast northwest southeast southwest
horizontal horizontally vertical vertically above below under beneath
clockwise counterclockwise anticlockwise inward inwards outward outwards radially radial
tangential tangentially perpendicular parallel normal axis plane page screen ground floor wall
incline slope surface x y z
magnitude approximately approx exactly final answer result
m s kg g n j w v a k pa hz rad sr mol cd c ev
meter meters metre metres second seconds kilogram kilograms gram grams newton newtons joule joules
watt watts volt volts ampere amperes amp amps kelvin radian radians pascal pascals hertz coulomb
coulombs ohm ohms tesla teslas farad farads henry weber webers electronvolt electronvolts
""".split())
"""Latin words (lower case) a comment beside a result may hold: directions, orientations, units
and the small words between them. ``positive``, ``negative``, ``minimum``, ``twice``, ``per``,
``less``, ``squared`` and the like are not in it: they can change the value."""

_CJK_VALUE_WORDS = re.compile(
    r"倍|半|平方|立方|次方|开方|根号|倒数|最大|最小|至少|至多|以上|以下|大于|小于|高于|低于|超过|加|减|乘|除|负|相反|反向|每")
"""Chinese words that change a value: times, half, square, at least, more than, minus, per, ..."""

_LATIN_WORD = re.compile(r"[A-Za-z]+")


_RADIANS = frozenset({"rad", "radian", "radians"})


def unread_words(comment: str, *, in_degrees: bool = False) -> list[str]:
    """The words of ``comment`` that may change the result it stands beside: Latin words outside
    :data:`COMMENT_WORDS` and Chinese value words (``倍``, ``至少``); ``[]`` when it is a comment.
    Beside a result in degrees (``in_degrees``), radians change it too (``30^\\circ`` "in radians")."""
    text = re.sub(r"\\[A-Za-z]+", " ", comment)  # the commands (\text, \quad) are no words
    unread = [word for word in _LATIN_WORD.findall(text)
              if word.lower() not in COMMENT_WORDS or (in_degrees and word.lower() in _RADIANS)]
    return unread + _CJK_VALUE_WORDS.findall(text)
