"""Tool output pasted into a question is data (helper howto5, fresh round 13 class 4/6): an `npu-smi info` table, a
`kubectl get pods` table, a FailedScheduling event. The diagnosis its values give leads; figures are hand-computed from
the pasted tables (61,200 / 65,536 MB = 93%; 3,390 / 32,768 MB = 10%). Remedies are the vendor's: the OOM page's
step 1 (find leftover processes with npu-smi info, kill them) and the Pending page (kubectl describe pod; CCE FAQ
cce_faq_00098 reads "Insufficient <resource>" as no node having that much free)."""

from __future__ import annotations

from assistant.offline import pasted_output as po

HELD = """机器上没有任务在跑，新起的训练一上来就 OOM。npu-smi info：
| NPU   Name   | Health | Power(W) Temp(C) |
| Chip         | Bus-Id | AICore(%) Memory-Usage(MB) HBM-Usage(MB) |
| 2     910B3  | OK     | 92.4  39        |
| 0            | 0000:81:00.0 | 0  0 / 0  61200/ 65536 |
| 3     910B3  | OK     | 90.1  38        |
| 0            | 0000:82:00.0 | 0  0 / 0  60950/ 65536 |
怎么回事"""

IDLE_32GB = """pasted from npu-smi info on my idle node:
| 0     910B4   | OK  | 88.0  37  0 / 0 |
| 0             | 0000:C1:00.0 | 0  0 / 0   3390/ 32768 |
| 1     910B4   | OK  | 87.5  36  0 / 0 |
| 0             | 0000:C2:00.0 | 0  0 / 0   3380/ 32768 |
is anything holding the cards? my training still OOMs"""

PODS = """$ kubectl get pods
NAME                 READY   STATUS    RESTARTS   AGE
qwen-train-worker-0  0/1     Pending   0          47m
qwen-train-worker-1  0/1     Pending   0          47m
what should I check first?"""

CPU_EVENT = """kubectl describe on my training pod:
  Warning  FailedScheduling  90s  volcano  0/4 nodes are available: 4 Insufficient cpu.
the NPUs are free though. what's wrong?"""


def test_npu_smi_rows_are_read_per_device():
    table = po.read(HELD)
    assert isinstance(table, po.NpuSmiTable)
    assert [(d.npu, d.name, d.aicore, d.hbm_used_mb, d.hbm_total_mb) for d in table.devices] == [
        (2, "910B3", 0, 61200, 65536), (3, "910B3", 0, 60950, 65536)]
    assert table.says_idle and all(d.held for d in table.devices)


def test_memory_held_on_idle_devices_is_leftover_processes():
    text = po.render(po.read(HELD), "zh")
    assert text.startswith("**显存被残留进程占着**")
    assert "61,200 / 65,536 MB（93%）" in text and "60,950 / 65,536 MB（93%）" in text  # 61200 / 65536 = 0.934
    assert "npu-smi info" in text and "kill" in text


def test_idle_share_on_32gb_devices_is_no_leftover():
    table = po.read(IDLE_32GB)
    assert not any(d.held for d in table.devices)
    text = po.render(table, "en")
    assert text.startswith("**Nothing holds the devices**")
    assert "3,390 / 32,768 MB in use (10%)" in text  # 3390 / 32768 = 0.103
    assert "32 GB" in text and "not 64 GB" in text


def test_pending_pods_table_names_the_users_pod():
    pods = po.read(PODS)
    assert isinstance(pods, po.PodsTable) and [p.name for p in pods.pods] == ["qwen-train-worker-0", "qwen-train-worker-1"]
    assert "kubectl describe pod qwen-train-worker-0" in po.render(pods, "en")


def test_insufficient_event_names_its_resource():
    event = po.read(CPU_EVENT)
    assert isinstance(event, po.SchedulingEvent) and (event.resource, event.nodes, event.short) == ("cpu", 4, 4)
    text = po.render(event, "en")
    assert text.startswith("**No node has enough free `cpu`**") and "cce_faq_00098" in text
    assert "NPUs" in po.render(po.read("0/2 nodes are available: 2 Insufficient huawei.com/ascend-1980."), "en")


def test_prose_without_a_table_is_not_output():
    assert po.read("npu-smi info 显示 NPU 0 上还挂着一个 python 进程占了 40GB，怎么办") is None


def test_answers_lead_with_the_diagnosis_and_cite_the_note(assistant):
    held = assistant.ask(HELD).answer
    assert held.startswith("**结论**：**显存被残留进程占着**") and "是哪个模型" not in held
    assert "（笔记：《NPU 显存溢出（OOM）的处理办法》）" in held.split("\n\n")[0]
    pods = assistant.ask(PODS).answer
    assert "not in the catalog" not in pods and "kubectl describe pod qwen-train-worker-0" in pods.split("From the notes")[0]
    cpu = assistant.ask(CPU_EVENT).answer
    assert cpu.startswith("**Answer:** **No node has enough free `cpu`**")


# npu-smi's one-line layout: each device's name, health and HBM pair on one row (no bus-id line under it), and a process
# table whose first cell holds the device and the PID together
ONE_LINE_TABLE = """why does my job OOM right away on card 6?
| NPU   Name        | Health | Power(W) Temp(C) | HBM-Usage(MB)  |
| 6     910B3       | OK     | 176.0    53      | 57980 / 65536  |
| 7     910B3       | OK     | 92.4     40      | 3377 / 65536   |
| Process id | Process name | Process memory(MB) |
| 6  240517  | python       | 54610              |"""


def test_one_line_device_rows_and_joined_process_cells_are_read():
    t = po.read(ONE_LINE_TABLE)
    assert isinstance(t, po.NpuSmiTable)
    assert [(d.npu, d.hbm_used_mb, d.hbm_total_mb) for d in t.devices] == [(6, 57980, 65536), (7, 3377, 65536)]
    assert [(p.npu, p.pid, p.name, p.memory_mb) for p in t.processes] == [(6, 240517, "python", 54610)]
    assert not t.load_said  # this layout shows no AICore column


def test_one_line_layout_names_the_pid_to_end():
    text = po.render(po.read(ONE_LINE_TABLE), "en")  # type: ignore[arg-type]
    assert text.startswith("**PID 240517")
    assert "kill -9 240517" in text
    assert "AICore 0%" not in text  # not shown in this layout, so not claimed


def test_hugepages_pair_on_a_name_line_is_not_a_device():
    # the two-line layout's name row carries Hugepages-Usage "0 / 0": the device comes from the bus line under it
    table = ("| 0     910B3   | OK  | 95.1  40  0 / 0 |\n"
             "| 0     | 0000:C1:00.0 | 0   0 / 0   58210/ 65536 |\n")
    t = po.read("npu-smi info\n" + table)
    assert isinstance(t, po.NpuSmiTable)
    assert [(d.npu, d.hbm_used_mb) for d in t.devices] == [(0, 58210)]


def test_only_a_few_gb_left_is_said_only_when_little_is_free():
    # 60,000 of 65,536 MB held (5.4 GB free): "only a few GB"; 42,000 of 65,536 MB (23 GB free): not said
    def table(used: int) -> po.NpuSmiTable:
        return po.NpuSmiTable(devices=(po.NpuDevice(npu=3, chip=0, name="910B3", aicore=0, hbm_used_mb=used, hbm_total_mb=65536),),
                              processes=(po.NpuProcess(npu=3, pid=4242, name="python", memory_mb=used),), says_idle=False)
    assert "only a few GB free" in po.render_npu_smi(table(60000), zh=False)
    assert "only a few GB free" not in po.render_npu_smi(table(42000), zh=False)
