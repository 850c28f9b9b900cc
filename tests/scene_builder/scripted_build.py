"""A scripted set of build models on one local server: generator ``gen``, checker ``check``, reviewer
``review``, solver ``solver`` and judge ``vlm``.

Every reply is a pure function of the request (the model name and the prompt), so the same
script answers a killed build, its resumption and an uninterrupted build alike. The script
plants one of each thing the pipeline must handle:

* ``refraction`` basic scenarios: the first reply is prose, not JSON (retried, then usable);
* the laser scenario's plausibility verdict first lacks a field (retried, then usable);
* the second projectile scenario is a near duplicate of the first (removed by the filters);
* the second pendulum scenario is perpetual motion (rejected as implausible);
* the water-to-air scenario's questions are never JSON (rejected, the reply kept);
* the first pendulum's question set misses the swing back (fails review once, passes revised);
* solver ``solver-build`` writes a program that exits with an error for the laser scene.
"""

from __future__ import annotations

import json
import re
import threading

from physeval.testing import Reply, Request

CONCEPTS = "projectile motion,simple pendulum,refraction"

BASIC = {
    "projectile motion": (["a ball thrown horizontally from a cliff", "a ball thrown horizontally off a cliff"],
                          ["considering air resistance", "a wind blows from the left", "the cliff is on the Moon"]),
    "simple pendulum": (["a pendulum released from 30 degrees", "a perpetual pendulum that speeds up forever"],
                        ["the string is elastic", "a peg catches the string halfway"]),
    "refraction": (["a laser beam entering a glass block", "a light ray passing from water into air"],
                   ["the block is a prism", "the laser is pulsed"]),
}

CLIFF = ("A red ball of mass 0.5 kg is thrown horizontally at 12 m/s from the top edge of a vertical cliff that is "
         "45 m high, standing on flat ground. Gravity is 9.8 m/s^2 and points down. Draw the cliff as a grey block "
         "on the left, the ground as a green strip and the ball as a red disc of radius 8 pixels, and leave a dotted "
         "trace of its path. The ball follows a parabola: its horizontal speed stays constant while its vertical "
         "speed grows steadily, until it lands about 36 m from the foot of the cliff after roughly 3 s. Show the "
         "elapsed time and the current speed as text in the top right corner, and stop the animation one second "
         "after the ball touches the ground, where it stays at rest.")
TEXTS = {
    "a ball thrown horizontally from a cliff": CLIFF,
    "a ball thrown horizontally off a cliff": CLIFF.replace("12 m/s", "13 m/s"),
    "a pendulum released from 30 degrees": (
        "A simple pendulum hangs from a fixed pivot at the top centre of the frame: a light string 1.2 m long with a "
        "small blue bob of 0.2 kg. The bob is pulled aside to 30 degrees from the vertical and released from rest; "
        "there is no friction and no air resistance. It swings down through the lowest point, where it is fastest, "
        "up to 30 degrees on the other side, and back again, with a period of about 2.2 s. Draw the pivot as a black "
        "triangle, the string as a thin grey line and a faint arc showing the path of the bob. Display the angle and "
        "the time in the corner, and run the animation for five full periods so that the viewer can see the motion "
        "repeat with the same amplitude every time."),
    "a perpetual pendulum that speeds up forever": (
        "A pendulum with a heavy brass bob hangs from a pivot in a sealed box and is given a small push. With no "
        "motor and no source of energy of any kind, every swing goes higher than the one before, so the amplitude "
        "grows from 10 degrees to a full loop within a minute, and the bob then keeps spinning faster and faster "
        "around the pivot forever while also warming the box. Draw the box as a dark rectangle, the string as a "
        "white line and the bob as a yellow disc, show a counter of completed swings and a bar of the bob's kinetic "
        "energy growing without limit, and let the animation run for sixty seconds of simulated time, speeding up "
        "steadily."),
    "a laser beam entering a glass block": (
        "A thin green laser beam travels from the left through air and strikes the flat top face of a rectangular "
        "glass block with refractive index 1.5 at an angle of incidence of 45 degrees. At the surface the beam bends "
        "towards the normal, travels through the glass at about 28 degrees from the normal, and leaves through the "
        "bottom face bent back to 45 degrees, parallel to the incoming beam but shifted sideways. Draw the block as "
        "a pale blue rectangle, the normals as dashed lines and the beam as a bright green line that grows from the "
        "source at a steady speed so the viewer sees it advance, and label both angles once the beam has passed "
        "each surface."),
    "a light ray passing from water into air": (
        "A narrow yellow ray of light starts at a lamp on the floor of a water tank, 2 m below the surface, and "
        "travels up and to the right at 30 degrees from the vertical. At the water surface it bends away from the "
        "normal and continues into the air above at about 42 degrees, because the refractive index of water is 1.33 "
        "and that of air is 1.0. Draw the tank in light blue with a darker surface line, the lamp as a small orange "
        "square, the normal at the surface as a dashed line and the ray as it advances from the lamp, and write the "
        "two angles beside the point where the ray crosses the surface once it gets there."),
}

QUESTIONS = {
    "cliff": [
        "Is a ball shown at the top edge of a cliff at the start?",
        "Does the ball leave the cliff moving horizontally?",
        "Does the ball follow a curved, parabolic path downward?",
        "Does the ball land on the ground some distance from the foot of the cliff?",
        "Is a trace of the ball's path drawn?",
    ],
    "pendulum": [
        "Is a bob shown hanging from a fixed pivot on a string?",
        "Does the bob start at rest away from the vertical?",
        "Does the bob move fastest at the lowest point?",
        "Does the string stay straight throughout the motion?",
    ],
    "laser": [
        "Is a rectangular glass block drawn?",
        "Does the beam bend towards the normal where it enters the block?",
        "Does the beam bend away from the normal where it leaves the block?",
        "Is the outgoing beam parallel to the incoming beam?",
        "Are the normals drawn as dashed lines?",
    ],
}
SWING_BACK = "Does the bob swing back up to the same height on the other side?"

PROGRAM = """import sys, cv2, numpy as np
out = cv2.VideoWriter(sys.argv[1], cv2.VideoWriter_fourcc(*"mp4v"), 10, (160, 120))
for i in range(20):
    frame = np.full((120, 160, 3), 30, np.uint8)
    cv2.circle(frame, (10 + 7 * i, 60), 8, (255, 255, 255), -1)
    out.write(frame)
out.release()
"""


def _json(obj: object) -> Reply:
    return Reply.text(json.dumps(obj))


def _field(prompt: str, name: str) -> str:
    match = re.search(rf"^{name}: (.+)$", prompt, re.MULTILINE)
    return match.group(1).strip() if match else ""


def _scene_key(prompt: str) -> str:
    for key, word in (("cliff", "cliff"), ("perpetual", "sealed box"), ("pendulum", "simple pendulum hangs"),
                      ("laser", "green laser"), ("water", "water tank")):
        if word in prompt:
            return key
    return "unknown"


class BuildScript:
    """The server script; ``answered`` counts the requests it answered (not those it holds)."""

    def __init__(self, *, hold_after: int | None = None) -> None:
        self.hold_after = hold_after
        self.answered: list[str] = []
        self.held = threading.Event()
        self.release = threading.Event()
        self._lock = threading.Lock()

    def __call__(self, request: Request) -> Reply:
        with self._lock:
            if self.hold_after is not None and len(self.answered) >= self.hold_after:
                hold = True
            else:
                hold = False
                self.answered.append(json.dumps(request.body, sort_keys=True))
        if hold:  # a reply that never comes: the test kills the build while it waits
            self.held.set()
            self.release.wait(600)  # set by the test right after the kill; a hang guard only
            return Reply.error(503, "held")
        return self.reply(request)

    def reply(self, request: Request) -> Reply:
        model = request.body.get("model")
        messages = request.body.get("messages", [])
        prompt = messages[0]["content"] if messages else ""
        retry = len(messages) > 1  # the repair follow-up after an unusable reply
        if model == "gen" and prompt.startswith("You design short physics animations"):
            concept = _field(prompt, "Concept")
            if concept == "refraction" and not retry:
                return Reply.text("Sure! Here are two lovely refraction scenarios: a laser and a light ray.")
            scenarios, conditions = BASIC[concept]
            return _json({"scenarios": scenarios, "conditions": conditions})
        if model == "gen" and prompt.startswith("You write the scenario texts"):
            basic = _field(prompt, "Basic scenario")
            text = TEXTS[basic]
            conditions = re.findall(r"^- (.+)$", prompt, re.MULTILINE)
            if "cliff" not in basic and conditions and not conditions[0].startswith("(none"):
                text += " It also includes: " + "; ".join(conditions) + "."
            return _json({"scenario": text})
        if model == "check":
            key = _scene_key(prompt)
            if key == "laser" and not retry:
                return _json({"plausible": True})  # "renderable" is missing
            if key == "perpetual":
                return _json({"plausible": False, "renderable": True,
                              "reason": "the swings grow with no source of energy: perpetual motion"})
            return _json({"plausible": True, "renderable": True, "reason": "consistent and drawable in 2D"})
        if model == "gen" and prompt.startswith("You write verification questions"):
            key = _scene_key(prompt)
            if key == "water":
                return Reply.text("The ray bends at the surface. (I prefer not to write JSON.)")
            return _json({"questions": QUESTIONS[key]})
        if model == "gen" and prompt.startswith("You revise"):
            return _json({"questions": [*QUESTIONS["pendulum"], SWING_BACK]})
        if model == "review":
            key = _scene_key(prompt)
            if key == "pendulum" and SWING_BACK not in prompt:
                return _json({"entities": ["pivot", "string", "bob"], "relations": ["the bob hangs from the pivot"],
                              "summary": "a pendulum swinging", "sufficient": False,
                              "missing": ["no question checks that the bob swings back to the other side"]})
            return _json({"entities": ["the moving object"], "relations": ["moves under the stated law"],
                          "summary": f"the {key} scene: the objects and their motion", "sufficient": True,
                          "missing": []})
        if model == "solver" or (model == "solver-build" and "green laser" not in prompt_text(request)):
            return Reply.text(f"```python\n{PROGRAM}```", reasoning="draw a moving disc")
        if model == "solver-build":  # the laser scene's program fails
            return Reply.text("```python\nimport sys\nsys.exit(3)\n```", reasoning="give up")
        if model == "vlm":
            count = len(re.findall(r"^\d+\. ", prompt_text(request), re.MULTILINE))
            return _json([{"index": str(i), "analysis": "seen", "result": True} for i in range(1, count + 1)])
        return Reply.error(400, f"unscripted request for {model}: {prompt[:80]}")


def prompt_text(request: Request) -> str:
    """The text parts of every message (the judge's prompt comes with images)."""
    parts = []
    for message in request.body.get("messages", []):
        content = message.get("content")
        if isinstance(content, list):
            parts += [p.get("text", "") for p in content if isinstance(p, dict)]
        elif isinstance(content, str):
            parts.append(content)
    return "\n".join(parts)
