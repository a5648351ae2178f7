#!/usr/bin/env python3
"""Prints a realistic ~4 KiB body of POST /containers/create (the shape docker CLI 27 sends for
`docker run --device nvidia.com/gpu=0 ...` of a training job), naming the CDI device argv[1].
argv[3], optional: a directory its host-path binds lie under (the repo's hostPaths in the gate's
manifest; the gate refuses binds outside them and resolves them on the host, so they must exist:
this script creates them). argv[4], optional: how many host-path binds (default 2: a dataset and a
project directory; 0 leaves only the named volume, 8 adds six shard directories)."""
import json, os, sys

device = sys.argv[1] if len(sys.argv) > 1 else "nvidia.com/gpu=0"
target = int(sys.argv[2]) if len(sys.argv) > 2 else 4096
root = sys.argv[3].rstrip("/") if len(sys.argv) > 3 else ""
nbinds = int(sys.argv[4]) if len(sys.argv) > 4 else 2
host = [("/srv/datasets", "/data:ro"), ("/home/ml/project", "/workspace")]
host += [("/srv/shards/%d" % i, "/shards/%d:ro" % i) for i in range(max(0, nbinds - 2))]
host = host[:nbinds]
if root:
    for src, _ in host:
        os.makedirs(root + src, exist_ok=True)
binds = [root + src + ":" + dst for src, dst in host]
binds.insert(min(1, len(binds)), "hf-cache:/cache/huggingface")
body = {
    "Hostname": "", "Domainname": "", "User": "1000:1000",
    "AttachStdin": False, "AttachStdout": True, "AttachStderr": True,
    "ExposedPorts": {"8888/tcp": {}}, "Tty": False, "OpenStdin": False, "StdinOnce": False,
    "Env": ["PATH=/usr/local/nvidia/bin:/usr/local/cuda/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
            "CUDA_VERSION=12.4.1", "PYTORCH_VERSION=2.4.0", "HF_HOME=/cache/huggingface",
            "WANDB_PROJECT=llm-finetune", "WANDB_MODE=offline", "OMP_NUM_THREADS=8",
            "NCCL_DEBUG=WARN", "TOKENIZERS_PARALLELISM=false", "TZ=UTC"],
    "Cmd": ["torchrun", "--nproc_per_node=1", "train.py", "--config", "configs/llama3-8b-lora.yaml",
            "--output-dir", "/data/runs/2026-11-29", "--bf16", "--gradient-checkpointing"],
    "Image": "nvcr.io/nvidia/pytorch:24.05-py3", "Volumes": {}, "WorkingDir": "/workspace",
    "Entrypoint": None, "OnBuild": None, "Labels": {},
    "HostConfig": {
        "Binds": binds,
        "ContainerIDFile": "", "LogConfig": {"Type": "", "Config": {}}, "NetworkMode": "bridge",
        "PortBindings": {"8888/tcp": [{"HostIp": "127.0.0.1", "HostPort": "8888"}]},
        "RestartPolicy": {"Name": "no", "MaximumRetryCount": 0}, "AutoRemove": True,
        "VolumeDriver": "", "VolumesFrom": None, "ConsoleSize": [0, 0], "CapAdd": None, "CapDrop": None,
        "CgroupnsMode": "", "Dns": [], "DnsOptions": [], "DnsSearch": [], "ExtraHosts": None,
        "GroupAdd": ["video", "render"], "IpcMode": "", "Cgroup": "", "Links": None, "OomScoreAdj": 0,
        "PidMode": "", "Privileged": False, "PublishAllPorts": False, "ReadonlyRootfs": False,
        "SecurityOpt": None, "UTSMode": "", "UsernsMode": "", "ShmSize": 8589934592,
        "Isolation": "", "CpuShares": 0, "Memory": 68719476736, "NanoCpus": 16000000000,
        "CgroupParent": "", "BlkioWeight": 0, "BlkioWeightDevice": [], "BlkioDeviceReadBps": [],
        "BlkioDeviceWriteBps": [], "BlkioDeviceReadIOps": [], "BlkioDeviceWriteIOps": [],
        "CpuPeriod": 0, "CpuQuota": 0, "CpuRealtimePeriod": 0, "CpuRealtimeRuntime": 0,
        "CpusetCpus": "", "CpusetMems": "", "Devices": [], "DeviceCgroupRules": None,
        "DeviceRequests": [{"Driver": "cdi", "Count": 0, "DeviceIDs": [device], "Capabilities": None, "Options": None}],
        "MemoryReservation": 0, "MemorySwap": 0, "MemorySwappiness": None, "OomKillDisable": None,
        "PidsLimit": None, "Ulimits": [{"Name": "memlock", "Hard": -1, "Soft": -1}, {"Name": "stack", "Hard": 67108864, "Soft": 67108864}],
        "CpuCount": 0, "CpuPercent": 0, "IOMaximumIOps": 0, "IOMaximumBandwidth": 0,
        "MaskedPaths": None, "ReadonlyPaths": None},
    "NetworkingConfig": {"EndpointsConfig": {"bridge": {}}},
}
i = 0
while len(json.dumps(body, separators=(",", ":"))) < target - 80:
    body["Labels"]["org.opencontainers.image.annotation.%02d" % i] = "llm-finetune run metadata field %02d: team=research cost-center=gpu-42" % i
    i += 1
print(json.dumps(body, separators=(",", ":")))
