"""The Ray executor on a real two-node cluster (a head and a second node started with `ray start`
on this machine, loopback only) gives the same rewards as the local executor, for every track."""

from __future__ import annotations

import pytest

ray = pytest.importorskip("ray", reason="ray is not installed (the ray or dev extra)")

from _scene_programs import BROKEN, GOOD, RENDER_GUARD_S, STATIC, fenced, judge_script  # noqa: E402
from physeval.rewards import SceneRewardOptions, SymbolicRewardOptions, score_batch  # noqa: E402
from physeval.rewards.executors import LocalExecutor, RayExecutor  # noqa: E402
from physeval.rewards.local_cluster import NODE_IP, LocalRayCluster  # noqa: E402
from physeval.testing import ScriptedServer  # noqa: E402

pytestmark = [pytest.mark.slow, pytest.mark.timeout(600)]

REF = r"2mg+4\frac{mv_0^2}{l}"
Q_KMS = "How fast is the probe? (Results should be expressed with units of $ km/s $)"


@pytest.fixture
def cluster(ray_cluster: LocalRayCluster) -> LocalRayCluster:
    """The session's two-node cluster (tests/conftest.py), this process its driver."""
    return ray_cluster


def test_the_cluster_has_two_live_nodes_and_tasks_reach_both(cluster: LocalRayCluster) -> None:
    @ray.remote(num_cpus=1)
    def where() -> str:
        import time

        time.sleep(0.5)
        return ray.get_runtime_context().get_node_id()

    nodes = {node["NodeID"] for node in ray.nodes() if node["Alive"]}
    assert len(nodes) == 2
    assert set(ray.get([where.remote() for _ in range(6)])) == nodes  # one CPU each: both nodes did work


def test_ray_rewards_are_identical_to_local_ones(cluster: LocalRayCluster) -> None:
    on_ray = RayExecutor(address=cluster.address, chunk_size=4, node_ip_address=NODE_IP)
    local = LocalExecutor(render_workers=2)
    try:
        symbolic = [r"\boxed{2mg+4\frac{mv_0^2}{l}}", r"\boxed{2mg+2\frac{mv_0^2}{l}}", r"\boxed{mg}", "none"] * 3
        options = SymbolicRewardOptions(partial_credit=True)
        ray_symbolic = score_batch("symbolic", symbolic, [REF] * 12, options=options, executor=on_ray)
        assert ray_symbolic == score_batch("symbolic", symbolic, [REF] * 12, options=options, executor=local)
        assert [r.reward for r in ray_symbolic[:4]][0] == 1.0

        numeric = [r"\boxed{30000 m/s}", r"\boxed{3 m/s}", r"\boxed{30}"] * 4
        args = (numeric, ["30"] * 12)
        ray_numeric = score_batch("numeric", *args, questions=[Q_KMS] * 12, executor=on_ray)
        assert ray_numeric == score_batch("numeric", *args, questions=[Q_KMS] * 12, executor=local)
        assert [r.reward for r in ray_numeric[:3]] == [1.0, 0.0, 1.0]

        with ScriptedServer(judge_script(lambda k, label: label != "2")) as judge:
            scene = SceneRewardOptions(judges=("openai/judge",), judge_base_url=judge.base_url, aggregation="ratio",
                                       render_timeout=RENDER_GUARD_S)
            rollouts = [fenced(GOOD), fenced(BROKEN), fenced(STATIC), fenced(GOOD)]
            scenes = ["em-lorentz-circle"] * 4
            ray_scene = score_batch("scene", rollouts, scenes=scenes, options=scene, executor=on_ray)
            local_scene = score_batch("scene", rollouts, scenes=scenes, options=scene, executor=local)
        assert [r.reward for r in ray_scene] == [r.reward for r in local_scene] == [5 / 6, 0.0, 0.0, 5 / 6]
        assert [r.explanation["per_question"] for r in ray_scene] == [r.explanation["per_question"]
                                                                      for r in local_scene]
        assert [r.outcome for r in ray_scene] == ["wrong", "error", "rendered", "wrong"]
    finally:
        local.close()


def test_the_reward_service_with_the_ray_executor_answers_like_the_local_one(cluster: LocalRayCluster) -> None:
    import asyncio

    httpx = pytest.importorskip("httpx")
    pytest.importorskip("fastapi", reason="the serve extra is not installed")
    from physeval.rewards.service import ServiceOptions, create_app

    completions = [r"\boxed{2mg+4\frac{mv_0^2}{l}}", r"\boxed{2mg+2\frac{mv_0^2}{l}}", r"\boxed{mg}", "none"]
    payload = {"id": "ray", "completions": completions, "references": [REF] * 4}

    async def ask(executor: str) -> dict:
        options = ServiceOptions(track="symbolic", executor=executor, ray_address=cluster.address,  # type: ignore
                                 ray_node_ip=NODE_IP, symbolic=SymbolicRewardOptions(partial_credit=True))
        app = create_app(options)
        async with app.router.lifespan_context(app):
            transport = httpx.ASGITransport(app=app)
            async with httpx.AsyncClient(transport=transport, base_url="http://service", timeout=120) as client:
                response = await client.post("/score", json=payload)
                assert response.status_code == 200
                return response.json()

    on_ray, local = asyncio.run(ask("ray")), asyncio.run(ask("local"))
    assert on_ray == local
    assert on_ray["rewards"][0] == 1.0 and on_ray["rewards"][1] == pytest.approx(0.4667, abs=1e-3)
