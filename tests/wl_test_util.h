// Shared helpers of the workload tests (tests/wl_*_test.cpp): generator parameters, a built
// workload that frees itself, images, running a program functionally, verifying a final image.
#pragma once
#include <cstring>
#include <memory>
#include <string>

#include "func_exec.h"
#include "workload.h"

namespace wltest {

struct ImgDel { void operator()(mem_image *m) const { mem_free(m); } };
using Img = std::unique_ptr<mem_image, ImgDel>;

inline wl_params make_params(uint64_t size, uint64_t seed, uint32_t sms, uint32_t max_tpb, uint32_t max_warps)
{
    wl_params p;
    std::memset(&p, 0, sizeof p);
    p.size = size;
    p.seed = seed;
    p.num_sms = sms;
    p.max_threads_per_block = max_tpb;
    p.max_warps_per_sm = max_warps;
    p.pm_base = PERSIM_PM_BASE;
    p.vol_base = PERSIM_VOL_BASE;
    return p;
}

// One build of a workload: rc and err are what build returned.
struct Built {
    const persim_workload *w = nullptr;
    persim_prog *p = prog_new();
    mem_image *init = mem_new();
    void *ctx = nullptr;
    int rc = -1;
    std::string err;
    ~Built()
    {
        if (ctx && w) w->free_ctx(ctx);
        mem_free(init);
        prog_free(p);
    }
};

inline std::unique_ptr<Built> build(const char *name, const wl_params &prm)
{
    auto b = std::make_unique<Built>();
    b->w = wl_find(name);
    if (!b->w) {
        b->err = std::string("no workload ") + name;
        return b;
    }
    char err[512] = "";
    b->rc = b->w->build(&prm, b->p, b->init, &b->ctx, err, sizeof err);
    b->err = err;
    return b;
}

// Runs p on a copy of init (max_steps 0 = no limit); the final image, or null with err set.
inline Img run_prog(const persim_prog *p, const mem_image *init, uint64_t max_steps, std::string *err)
{
    Img img(mem_clone(init));
    char e[1024] = "";
    if (func_exec(p, img.get(), max_steps, e, sizeof e) != 0) {
        *err = e;
        return nullptr;
    }
    return img;
}

// "ok" or the verifier's message.
inline std::string verify(const Built &b, const mem_image *img)
{
    char msg[512] = "";
    return b.w->verify(b.ctx, img, msg, sizeof msg) == 0 ? std::string("ok") : std::string(msg);
}

} // namespace wltest
