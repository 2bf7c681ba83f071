"""Each framework of the card on a real sweep, where it is installed (skipped, naming the
package, where not; ``pip install 'ulplab[peers]'`` installs them all). The backends run in
child processes (``time_limit``): TensorFlow and Paddle are never imported into the test
process, so their import-time warnings cannot fail it.

What was measured here (tensorflow-cpu 2.21.0, onnxruntime 1.32.0, openvino 2026.4.1,
tinygrad 0.14.0, paddlepaddle 3.3.1, on an AVX-512 CPU): TensorFlow, OpenVINO and tinygrad
compute bfloat16 tanh in bfloat16; ONNX Runtime's CPU provider has no bfloat16 Tanh and Paddle no
bfloat16 CPU kernel, so both run in float32 and the row says why.
"""

import sys

import pytest

from conftest import needs
from ulplab.peers import report_card

LIMIT = 240.0


def _rows(card):
    return {r["backend"]: r for r in card["backends"]}


# backend, package, the format it computes bfloat16 tanh in, whether it has autograd
FRAMEWORKS = [
    ("tensorflow", "tensorflow", "bfloat16", True),
    ("onnxruntime", "onnxruntime", "float32", False),
    ("openvino", "openvino", "bfloat16", False),
    ("tinygrad", "tinygrad", "bfloat16", True),
    ("paddle", "paddle", "float32", True),
]


@pytest.mark.parametrize(("backend", "package", "computes_in", "autograd"),
                         [pytest.param(*f, marks=needs(f[1])) for f in FRAMEWORKS],
                         ids=[f[0] for f in FRAMEWORKS])
def test_framework_on_the_card(backend, package, computes_in, autograd):
    loaded_before = package in sys.modules
    card = report_card("tanh", "bfloat16", [backend, "numpy"], time_limit=LIMIT)
    rows = _rows(card)
    skipped = {s["backend"]: s for s in card["skipped"]}
    if backend == "tinygrad" and backend in skipped:  # no clang: the device cannot start
        assert "does not start" in skipped[backend]["reason"]
        pytest.skip(skipped[backend]["reason"])
    row = rows[backend]
    assert row["computes_in"] == computes_in
    if computes_in == "float32":  # the row says why not bfloat16, naming the format
        assert "bfloat16" in row["why_float32"].lower()
    assert row["inputs"] == 65536
    # a wrong conversion of the bits would be exact nowhere; tinygrad's bfloat16 tanh (2
    # sigmoid(2x) - 1 in bfloat16: cancellation near 0) was exact on 50.5% of the inputs
    assert row["exact_fraction"] > (0.4 if backend == "tinygrad" else 0.9)
    assert row["nan_mismatches"] == 0 or backend == "openvino"
    assert "numpy" in rows  # the rest of the card is there
    back = f"{backend} (backward)"
    if autograd:
        assert rows[back]["reference"] == "tanh_grad" and rows[back]["exact_fraction"] > 0.5
    else:
        assert "autograd" in skipped[back]["reason"]
    if not loaded_before:  # measured in its own process, never imported here
        assert package not in sys.modules


@needs("tinygrad")
def test_tinygrad_has_no_erf_gelu_and_says_so():
    card = report_card("gelu", "bfloat16", ["tinygrad"], backward=False, time_limit=LIMIT)
    assert card["skipped"] == [{"backend": "tinygrad", "status": "skipped",
                                "reason": "tinygrad has no gelu"}]


@needs("onnxruntime", "onnx")
def test_onnx_model_is_one_node_of_the_right_operator():
    import onnx

    from ulplab.backends.onnxruntime import model_bytes

    for func, op, attrs in (("gelu", "Gelu", {}), ("gelu_tanh", "Gelu", {"approximate": "tanh"}),
                            ("silu", "Swish", {}), ("erf", "Erf", {})):
        model = onnx.load_from_string(model_bytes(func, "FLOAT16"))
        (node,) = model.graph.node
        assert node.op_type == op
        assert {a.name: a.s.decode() for a in node.attribute} == attrs


@needs("onnxruntime", "onnx")
def test_onnxruntime_float16_runs_in_float16():
    card = report_card("exp", "float16", ["onnxruntime"], backward=False, time_limit=LIMIT)
    assert _rows(card)["onnxruntime"]["computes_in"] == "float16"
