import timeit, torch
x = torch.zeros(1024, device="cuda")
s = torch._C._cuda_getCurrentRawStream
def t(stmt, n=200000):
    g = {"x": x, "torch": torch, "s": s, "T": torch.Tensor}
    best = min(timeit.repeat(stmt, globals=g, number=n, repeat=7))
    print(f"{stmt:50s} {best / n * 1e9:8.1f} ns")
t("pass")
t("x.data_ptr()")
t("x.get_device()")
t("x.dtype")
t("T.data_ptr(x)")
t("s(0)")
t("torch.cuda.current_device()")
t("torch._C._cuda_getDevice()")
t("x.is_cuda")
t("x.device")
