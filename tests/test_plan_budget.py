"""PLAN's budget plan: one value decided from public values, and mean/ read top-down.

Laws: the budget is a function of the public parameters alone (equal parameters give
equal budgets, and a PLAN holds exactly the budget :func:`plan_budget` returns); what
PLAN builds follows it (shares, rounds, K, the noises' shares); and the modules of
``mean/`` import each other without a cycle, even counting imports made only for types.
"""

from __future__ import annotations

import ast
import dataclasses
from fractions import Fraction
from pathlib import Path

import pytest

from finitedp.errors import ParameterError
from finitedp.mean import PLAN
from finitedp.mean.budget import PlanBudget, plan_budget

MEAN = Path(__file__).resolve().parent.parent / "finitedp" / "mean"

CASES = [
    {"lower": -20, "upper": 20, "d": 8, "n": 1000, "rho": "1/2", "step": "1/16"},
    {"lower": 0, "upper": 1, "d": 64, "n": 500, "rho": "1/2", "variance": "binary"},
    {"lower": -4, "upper": 4, "d": 256, "n": 600, "rho": "1/8"},  # repair rounds
    {"lower": 0, "upper": 9, "d": 3, "n": 40, "rho": 2, "shares": ["1/4", "1/4", "1/4", "1/4"]},
]


@pytest.mark.parametrize("case", CASES)
def test_a_plan_holds_the_budget_its_public_values_decide(case: dict[str, object]) -> None:
    lower, upper = case["lower"], case["upper"]
    options = {k: v for k, v in case.items() if k not in ("lower", "upper")}
    budget = plan_budget(lower, upper, **options)  # type: ignore[arg-type]
    assert budget == plan_budget(lower, upper, **options)  # type: ignore[arg-type]
    plan = PLAN(lower, upper, **options)  # type: ignore[arg-type]
    assert plan.budget == budget
    assert (plan.shares, plan.rounds, plan.units, plan.clipped) == (
        budget.shares,
        budget.rounds,
        budget.units,
        budget.clipped,
    )
    assert sum(budget.shares) == 1 and sum(budget.noise_split) == 1
    assert budget.round_shares == tuple(
        budget.shares[3] * budget.inputs.rho * f for f in budget.noise_split
    )
    assert [t.sigma2 for t in plan.noises] == [
        Fraction((2 * budget.units) ** 2) / (2 * s * (1 - Fraction(1, 1 << 20)))
        for s in budget.round_shares
    ]
    text = budget.describe()
    assert "shares of rho" in text and f"K = {budget.units}" in text
    with pytest.raises(dataclasses.FrozenInstanceError):
        budget.units = 1  # type: ignore[misc]


def test_the_repair_case_decides_rounds_and_a_light_split() -> None:
    budget = plan_budget(-4, 4, d=256, n=600, rho="1/8")
    assert isinstance(budget, PlanBudget)
    assert budget.repairing and budget.rounds >= 8
    assert budget.noise_split[0] < budget.noise_split[-1]


def test_a_bad_parameter_is_refused_before_any_decision() -> None:
    with pytest.raises(ParameterError, match="n: got 1; PLAN needs at least 2 rows"):
        plan_budget(0, 1, d=2, n=1, rho=1)
    with pytest.raises(ParameterError, match="rho: got 65; at most 64"):
        plan_budget(0, 1, d=2, n=10, rho=65)


def _imports(path: Path) -> set[str]:
    """The sibling modules ``path`` imports, anywhere in the file (``TYPE_CHECKING`` too)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.level == 1 and node.module:
            found.add(node.module.split(".")[0])
    return found


def test_mean_has_no_import_cycle_even_for_types() -> None:
    graph = {p.stem: _imports(p) for p in MEAN.glob("*.py")}
    state: dict[str, int] = {}

    def visit(module: str, path: list[str]) -> None:
        if state.get(module) == 2:
            return
        assert state.get(module) != 1, f"cycle: {' -> '.join([*path, module])}"
        state[module] = 1
        for target in sorted(graph.get(module, set())):
            visit(target, [*path, module])
        state[module] = 2

    for module in sorted(graph):
        visit(module, [])
    assert "plan" not in graph["shares"] | graph["rounds"] | graph["sparse"] | graph["budget"]
