"""The embedded model's speed: physeval's child-process runtime against llama-cpp-python, side by side.

Both generate greedily from the same bank-numeric prompts (the main job's own), with the same
weights and the same token budget, one request at a time, in this one run. physeval's side is
the real path (``LocalModel``: the child process behind the OpenAI client); the reference is
llama-cpp-python's ``Llama.create_chat_completion`` in another interpreter (a venv of your own:
``--llama-cpp-python /path/to/venv/bin/python``), so neither shares a process with the other.

    python bench/local_model.py --prompts 6 --max-tokens 128 [--llama-cpp-python VENV/bin/python]

Prints completion tokens per second for each side and their ratio.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import subprocess
import sys
import time

from physeval.models.local import LocalModel
from physeval.models.local_weights import smollm2_gguf_path
from physeval.tasks.registry import get_task

_REFERENCE = r"""
import json, sys, time
from llama_cpp import Llama
job = json.loads(sys.stdin.read())
llama = Llama(model_path=job["gguf"], n_ctx=4096, verbose=False)
llama.create_chat_completion(messages=job["prompts"][0], max_tokens=4, temperature=0.0)  # warm-up
tokens, started = 0, time.perf_counter()
for messages in job["prompts"]:
    reply = llama.create_chat_completion(messages=messages, max_tokens=job["max_tokens"], temperature=0.0)
    tokens += reply["usage"]["completion_tokens"]
print(json.dumps({"tokens": tokens, "seconds": time.perf_counter() - started}))
"""


def _prompts(count: int) -> list[list[dict[str, str]]]:
    task = get_task("bank-numeric", variants=1)
    return [task.prompt(problem) for problem in task.load()[:count]]


async def _physeval(prompts: list[list[dict[str, str]]], max_tokens: int) -> tuple[int, float]:
    model = LocalModel()
    try:
        await model.preflight()  # starts the child and warms it, outside the clock
        tokens, started = 0, time.perf_counter()
        for messages in prompts:
            completion = (await model.generate(messages, max_tokens=max_tokens, temperature=0.0))[0]
            tokens += completion.usage.get("completion_tokens", 0)
        return tokens, time.perf_counter() - started
    finally:
        await model.aclose()


def _reference(python: str, prompts: list[list[dict[str, str]]], max_tokens: int) -> tuple[int, float]:
    job = json.dumps({"gguf": str(smollm2_gguf_path()), "prompts": prompts, "max_tokens": max_tokens})
    done = subprocess.run([python, "-c", _REFERENCE], input=job, capture_output=True, text=True, check=True)
    result = json.loads(done.stdout.strip().splitlines()[-1])
    return int(result["tokens"]), float(result["seconds"])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--prompts", type=int, default=6)
    parser.add_argument("--max-tokens", type=int, default=128)
    parser.add_argument("--llama-cpp-python", metavar="PYTHON", help="an interpreter with llama-cpp-python installed")
    args = parser.parse_args()
    prompts = _prompts(args.prompts)
    tokens, seconds = asyncio.run(_physeval(prompts, args.max_tokens))
    ours = tokens / seconds
    print(f"physeval (cyllama, child process): {tokens} tokens in {seconds:.1f} s = {ours:.1f} tok/s")
    if args.llama_cpp_python:
        ref_tokens, ref_seconds = _reference(args.llama_cpp_python, prompts, args.max_tokens)
        theirs = ref_tokens / ref_seconds
        print(f"llama-cpp-python (in process):     {ref_tokens} tokens in {ref_seconds:.1f} s = {theirs:.1f} tok/s")
        print(f"ratio physeval / llama-cpp-python: {ours / theirs:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
