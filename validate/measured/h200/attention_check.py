#!/usr/bin/env python3
"""Checks plansim's flash-attention time model against the measured SDPA rates in data/torch_attention.json
(README.md, "Attention"). It restates the model in a few lines: executed query-key pairs per sequence and
head = s(s+1)/2 (causal) + s·63.5 (the masked half of 128-row diagonal tiles) + 64·s (the per-row cost),
sim/model/transformer.cpp flash_executed_pairs; forward work 4·d FLOPs per pair, backward 2.5x; time =
work / (794.5 TFLOP/s · efficiency) [+ one exponential per pair and pass at 794.5/256 T/s, the softmax term
under test]. It fits the efficiency per kernel and prints the errors by head dimension and sequence length,
for one efficiency over forward and backward, for separate ones, and for forward+backward time.
Usage: attention_check.py (from this folder)."""
import json, math
d=json.load(open('data/torch_attention.json'))
R=794.5e12  # plansim's attention rate for H100/H200 bf16 (MAMF)
rows=[r for r in d['rows'] if 'error' not in r and r['causal']]
def pairs(s): return s*(s+1)/2 + s*63.5 + 64*s
def model(r, e, exp_on, part):
    b,h,s,dd=r['batch'],r['heads'],r['seq'],r['head_dim']
    p=b*h*pairs(s)
    prod=p*4*dd*(1 if part=='fwd' else 2.5)/(R*e)
    ex=p/(R/256) if exp_on else 0
    return prod+ex
def meas(r,part): return r['fwd_s'] if part=='fwd' else r['bwd_s']
for backend in ('flash2','cudnn'):
  for exp_on in (False, True):
    # fit e (one per backend, fwd and bwd together) by least squares on log time over seq>=2048
    sel=[(r,p) for r in rows if r['backend']==backend and r['seq']>=2048 for p in ('fwd','bwd')]
    best=None
    for i in range(200,1600):
        e=i/1000
        err=sum(math.log(model(r,e,exp_on,p)/meas(r,p))**2 for r,p in sel)
        if best is None or err<best[0]: best=(err,e)
    e=best[1]
    errs=[(r['head_dim'],r['seq'],p,100*(model(r,e,exp_on,p)/meas(r,p)-1)) for r,p in sel]
    mape=sum(abs(x[3]) for x in errs)/len(errs)
    by_hd={hd: sum(x[3] for x in errs if x[0]==hd)/sum(1 for x in errs if x[0]==hd) for hd in (64,128)}
    print(f"{backend:6} exp={'on ' if exp_on else 'off'} e={e:.3f}  MAPE {mape:5.1f} %  mean err hd64 {by_hd[64]:+5.1f} %  hd128 {by_hd[128]:+5.1f} %  max {max(abs(x[3]) for x in errs):.1f}")
    for x in errs:
        if x[1] in (4096,16384): print("    hd %3d s %5d %s %+6.1f" % x)
print("---- separate forward and backward efficiencies")
for backend in ('flash2','cudnn'):
  for exp_on in (False, True):
    res={}
    for p in ('fwd','bwd'):
      sel=[r for r in rows if r['backend']==backend and r['seq']>=2048]
      best=None
      for i in range(200,2000):
        e=i/1000
        err=sum(math.log(model(r,e,exp_on,p)/meas(r,p))**2 for r in sel)
        if best is None or err<best[0]: best=(err,e)
      res[p]=best[1]
    errs=[(r['head_dim'],r['seq'],p,100*(model(r,res[p],exp_on,p)/meas(r,p)-1)) for r in rows if r['backend']==backend and r['seq']>=2048 for p in ('fwd','bwd')]
    mape=sum(abs(x[3]) for x in errs)/len(errs)
    by={(hd,p): sum(x[3] for x in errs if x[0]==hd and x[2]==p)/sum(1 for x in errs if x[0]==hd and x[2]==p) for hd in (64,128) for p in ('fwd','bwd')}
    print(f"{backend:6} exp={'on ' if exp_on else 'off'} e_fwd={res['fwd']:.3f} e_bwd={res['bwd']:.3f} MAPE {mape:5.1f} % max {max(abs(x[3]) for x in errs):5.1f}  " + " ".join(f"{k[1]}/hd{k[0]} {v:+.1f}" for k,v in by.items()))
    # seq-length residual pattern at hd128 fwd
    print("     hd128 fwd by seq:", " ".join(f"{x[1]}:{x[3]:+.1f}" for x in errs if x[0]==128 and x[2]=='fwd'))
print("---- one efficiency, fwd+bwd time (a training step's attention)")
for backend in ('flash2','cudnn'):
  for exp_on in (False, True):
    sel=[r for r in rows if r['backend']==backend and r['seq']>=2048]
    def tot(r,e): return model(r,e,exp_on,'fwd')+model(r,e,exp_on,'bwd')
    best=None
    for i in range(200,2000):
      e=i/1000
      err=sum(math.log(tot(r,e)/r['fwd_bwd_s'])**2 for r in sel)
      if best is None or err<best[0]: best=(err,e)
    e=best[1]
    errs=[(r['head_dim'],r['seq'],100*(tot(r,e)/r['fwd_bwd_s']-1)) for r in sel]
    print(f"{backend:6} exp={'on ' if exp_on else 'off'} e={e:.3f} MAPE {sum(abs(x[2]) for x in errs)/len(errs):5.1f} %  " + " ".join(f"hd{x[0]}/{x[1]}:{x[2]:+.1f}" for x in errs))
