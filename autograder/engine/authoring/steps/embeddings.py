"""The steps towards `embeddings`, in the order the notebook asks them."""

import torch

from autograder.engine.authoring.builder import In, randn
from autograder.engine.authoring.steps.step import Step, of

SIZES = (("even", (6, 8)), ("odd", (5, 7)))  # case id, (max_len, d_model)


def _angles(c):
    for case_id, (max_len, d_model) in SIZES:
        c.add(case_id, f"max_len={max_len}, d_model={d_model}", {}, [max_len, d_model], dtypes=(None,))


def _interleave(c):
    for case_id, (max_len, d_model) in SIZES:
        g = c.generator(case_id)
        angles = randn(g, max_len, (d_model + 1) // 2, scale=2.0)
        c.add(case_id, f"max_len={max_len}, d_model={d_model}", {"angles": angles}, [In("angles"), d_model])


def _sum(c):
    for case_id, about, types in (
        ("types", "input_ids (2, 4), token types given", True),
        ("no-types", "input_ids (2, 3), token_type_ids None", False),
    ):
        g = c.generator(case_id)
        T = 4 if types else 3
        inputs = {
            "input_ids": torch.randint(0, 7, (2, T), generator=g),
            "token_table": randn(g, 7, 5),
            "position_table": randn(g, 6, 5),
            "type_table": randn(g, 3, 5),
        }
        args = [In("input_ids"), In("token_table"), In("position_table"), In("type_table")]
        if types:
            inputs["token_type_ids"] = torch.randint(0, 3, (2, T), generator=g)
            args.append(In("token_type_ids"))
        c.add(case_id, about, inputs, args)


STEPS = of(
    "embeddings",
    Step(
        "sinusoid_angles",
        "the angles",
        "(max_len, ceil(d_model/2)): angle[p, i] = p / 10000^(2i/d_model).",
        hint=(
            "angle[p, i] = p / 10000 ** (2i / d_model) for i = 0 .. ceil(d_model / 2) - 1 and positions p = 0 .. "
            "max_len - 1: shaped (max_len, (d_model + 1) // 2), with 2i, the even column's index, in the "
            "exponent."
        ),
        wrong=lambda max_len, d_model: (
            torch.arange(max_len)[:, None] / 10000 ** (torch.arange((d_model + 1) // 2) / d_model)  # i for 2i
        ),
        cases=_angles,
        minutes=10,
        difficulty="medium",
    ),
    Step(
        "interleave_sin_cos",
        "the table",
        "Sines of the angles in the even columns, cosines in the odd ones, (max_len, d_model); for an odd "
        "d_model, the cosine of the last angle has no column.",
        hint=(
            "the sines of the angles fill the even columns and their cosines the odd ones; for an odd d_model "
            "there is one odd column fewer, and the last angle's cosine is left out."
        ),
        wrong=lambda angles, d_model: torch.cat([angles.sin(), angles.cos()], -1)[:, :d_model],
        cases=_interleave,
        minutes=15,
        difficulty="hard",
    ),
    Step(
        "embedding_sum",
        "the sum of the three embeddings",
        "On the tables as tensors: token_table[input_ids] + the positions 0..T-1 of position_table + "
        "type_table[token_type_ids], with types all 0 when none are given.",
        hint=(
            "each token's row of the token table, plus the row of its position (0 .. T - 1), plus the row of its "
            "token type, every type 0 when token_type_ids is None."
        ),
        wrong=lambda input_ids, tokens, positions, types, token_type_ids=None: (
            tokens[input_ids] + positions[1 : input_ids.size(1) + 1]
        ),
        cases=_sum,
        minutes=10,
        difficulty="easy",
    ),
)
