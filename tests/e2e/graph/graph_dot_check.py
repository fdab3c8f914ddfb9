#!/usr/bin/env python3
"""Checks the structure of `texc examples/10_network.tex --target x86 -D S=16 --emit graph-dot`
(docs/graph.md): one cluster, 6 kernel boxes with their anchors and FLOPs, the 7 inputs and the
output as plain nodes, and 13 edges: each input into the kernel that reads it, each intermediate
from its producer to its reader with its bytes and workspace offset, and Y out of the last kernel.
The file is parsed here (node and edge statements), not matched line by line.
usage: graph_dot_check.py FILE.dot"""
import re
import sys

text = open(sys.argv[1]).read()
problems = []
if not text.startswith("digraph texc {") or not text.rstrip().endswith("}"):
    problems.append("not one digraph")
clusters = re.findall(r'subgraph "(cluster_[^"]+)"', text)
if clusters != ["cluster_small_cnn"]:
    problems.append(f"clusters {clusters}")
nodes = {m.group(1): dict(re.findall(r'(\w+)=("(?:[^"\\]|\\.)*"|\w+)', m.group(2)))
         for m in re.finditer(r'^\s*"([^"]+)" \[(.*)\];$', text, re.M)}
edges = [(m.group(1), m.group(2), m.group(3))
         for m in re.finditer(r'^\s*"([^"]+)" -> "([^"]+)" \[label="((?:[^"\\]|\\.)*)"\];$', text, re.M)]
boxes = sorted(n for n, a in nodes.items() if a.get("shape") == "box")
plain = sorted(n for n, a in nodes.items() if a.get("shape") == "plaintext")
if boxes != [f"small_cnn_k{i}" for i in range(6)]:
    problems.append(f"kernel boxes {boxes}")
want_plain = sorted("small_cnn." + t for t in ["X", "W1", "B1", "W2", "B2", "W3", "B3", "Y"])
if plain != want_plain:
    problems.append(f"plain nodes {plain}")
for kernel, anchor in [("small_cnn_k0", "anchor Yb (conv2d)"), ("small_cnn_k1", "anchor P1 (max_pool2d)"),
                       ("small_cnn_k4", "anchor P (dense)"), ("small_cnn_k5", "anchor Mx (softmax)")]:
    label = nodes.get(kernel, {}).get("label", "")
    if anchor not in label or not re.search(r"\\n[0-9]+ FLOP\"$", label):
        problems.append(f"{kernel} label {label}")
if "stages: C2_Xp, C2_Wb, C2_Yb, C2, A2" not in nodes.get("small_cnn_k2", {}).get("label", ""):
    problems.append("small_cnn_k2's stages")
ends = sorted((a, b) for a, b, _ in edges)
want = sorted([("small_cnn.X", "small_cnn_k0"), ("small_cnn.W1", "small_cnn_k0"), ("small_cnn.B1", "small_cnn_k0"),
               ("small_cnn_k0", "small_cnn_k1"), ("small_cnn.W2", "small_cnn_k2"), ("small_cnn.B2", "small_cnn_k2"),
               ("small_cnn_k1", "small_cnn_k2"), ("small_cnn_k2", "small_cnn_k3"), ("small_cnn.W3", "small_cnn_k4"),
               ("small_cnn.B3", "small_cnn_k4"), ("small_cnn_k3", "small_cnn_k4"), ("small_cnn_k4", "small_cnn_k5"),
               ("small_cnn_k5", "small_cnn.Y")])
if ends != want:
    problems.append(f"edges {ends}")
labels = {(a, b): l for a, b, l in edges}
# The intermediates carry their workspace offsets (the plan of --emit graph); inputs and outputs none.
for (a, b), want_label in {("small_cnn_k0", "small_cnn_k1"): r"A1 f32[1, 8, 16, 16]\n8192 bytes\nworkspace offset 0",
                           ("small_cnn_k1", "small_cnn_k2"): r"P1 f32[1, 8, 8, 8]\n2048 bytes\nworkspace offset 8192",
                           ("small_cnn_k2", "small_cnn_k3"): r"A2 f32[1, 16, 8, 8]\n4096 bytes\nworkspace offset 0",
                           ("small_cnn.X", "small_cnn_k0"): r"X f32[1, 3, 16, 16]\n3072 bytes",
                           ("small_cnn_k5", "small_cnn.Y"): r"Y f32[1, 10]\n40 bytes"}.items():
    if labels.get((a, b)) != want_label:
        problems.append(f"edge {a} -> {b}: {labels.get((a, b))!r}, wanted {want_label!r}")
if sum("workspace offset" in l for _, _, l in edges) != 5:
    problems.append("not 5 intermediates with a workspace offset")
for p in problems:
    print("graph_dot_check:", p)
sys.exit(1 if problems else 0)
