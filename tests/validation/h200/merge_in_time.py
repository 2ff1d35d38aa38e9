#!/usr/bin/env python3
"""A prototype, not the model: one-wave GEMMs' L2 read lookups per requested sector from a merge
model in time, against ncu's (docs/cache-model.md, "How far one wave's tiles drift").

Every tile of a one-wave, unwrapped corpus launch reads its blocks of A and B at k-steps K/2 ..
K/2 + 7; its time there is (k + x) iterations, x a random walk of `a` iterations a step
(skinny_phases.py --spread: 0.11), the iteration the longer of the loaded round trip over
stages - 1 (`rt`, 835 ns) and the SM's loads at 65.9 GB/s; the CTAs sit on SMs as
sm_dispatch.csv.gz has them and merge within their GPC (lrc_domain.csv, `domain=all`: one
domain). A GPC's read of a block stays open `lmiss` ns when it missed (or found the fill in
flight: until the fill), `whit` ns when it hit; a request finding an open read is looked up
with odds `odds` (the burst rule's 1 in 4), else merges. `convoy=row`: the tiles reading one
block of A walk as one; `all`: the whole wave; `s2`: the whole wave at 2 stages, none deeper.
`own=1`: each tile keeps a speed of its own, off by 4% (3 stages) or 7% (4-5) sd, as the
profile's tile_rate_sd measurement has the tile times. `curve=1`: a follower merges with the
share lrc_window.py measured at its delay behind its GPC's open read (a miss: 1.0 to 160 ns,
0.74 at 300, 0.38 at 400, 0.18 at 600 while the other SMs read L2; a hit: 0.53 at 32 ns, none
past 64), times 1 - odds.

  python3 tests/validation/h200/l2_residuals.py --lookups --out rows.csv
  python3 tests/validation/h200/merge_in_time.py rows=rows.csv [a=0.11] [lmiss=300] [whit=34] [odds=0.25]
          [rt=835] [domain=gpc|all] [convoy=none|row|all|s2] [own=1] [curve=1] [show=1]
"""
import csv,gzip,random,math,sys,collections,os
H=os.path.join(os.path.dirname(os.path.abspath(__file__)),'..','..','..','hw_profiles','calibrate','h200')+'/'
args=dict(a.split('=') for a in sys.argv[1:])
A_WALK=float(args.get('a','0.11')); LMISS=float(args.get('lmiss','300')); WHIT=float(args.get('whit','34'))
ODDS=float(args.get('odds','0.25')); CONVOY=args.get('convoy','none'); OWN=args.get('own','0')=='1'; CURVE=args.get('curve','0')=='1'; RT=float(args.get('rt','835')); DOMAIN=args.get('domain','gpc')
# SM -> GPC domain
gpc={}
for i,line in enumerate(['0 1 16 17 32 33 48 49 124 125 126 127 128 129 130 131','2 3 18 19 34 35 50 51 64 65 78 79 92 93 106 107',
 '4 5 20 21 36 37 52 53 66 67 80 81 94 95 108 109','6 7 22 23 38 39 54 55 68 69 82 83 96 97 110 111','8 9 24 25 40 41 56 57 70 71 84 85 98 99 112 113',
 '10 11 26 27 42 43 58 59 72 73 86 87 100 101 114 115','12 13 28 29 44 45 60 61 74 75 88 89 102 103 116 117 120 121','14 15 30 31 46 47 62 63 76 77 90 91 104 105 118 119 122 123']):
    for s in line.split(): gpc[int(s)]=i
disp=collections.defaultdict(dict)
for x in csv.DictReader(l for l in gzip.open(H+'sm_dispatch.csv.gz','rt') if not l.startswith('#')):
    if x['rep']=='0': disp[int(x['resident'])][int(x['cta'])]=int(x['smid'])
# lrc_window.csv: a follower's merged share against its delay behind the open read, a miss while
# the other SMs read L2 and a hit (lrc_fine.csv), idle
MISS_CURVE=[(0,1.0),(160,1.0),(200,0.89),(300,0.74),(400,0.38),(600,0.18),(800,0.0)]
HIT_CURVE=[(0,1.0),(16,0.82),(32,0.53),(48,0.26),(64,0.02),(80,0.0)]
def interp(curve,d):
    if d<=curve[0][0]: return curve[0][1]
    for (a,x),(b,y) in zip(curve,curve[1:]):
        if d<=b: return x+(y-x)*(d-a)/(b-a)
    return curve[-1][1]
def coords(pid,npm,npn,g):
    nig=g*npn; gid=pid//nig; fm=gid*g; gs=min(npm-fm,g)
    return fm+(pid%nig)%gs, (pid%nig)//gs
def simulate(M,N,K,bm,bn,bk,g,stages,seed=1):
    rnd=random.Random(seed)
    npm,npn=-(-M//bm),-(-N//bn); tiles=npm*npn
    res=max(1,-(-tiles//132))
    dmap=disp[min(disp, key=lambda r:(r<res, abs(r-res)))]
    steps=-(-K//bk)
    T=max(RT/max(1,stages-1), res*(bm+bn)*bk*2/65.9e9*1e9)
    # drift: walk to mid-K, then 8 k-steps
    j0=steps//2
    pos=[coords(p,npm,npn,g) for p in range(tiles)]
    sm=[dmap.get(p, p%132) for p in range(tiles)]
    dom=[gpc[s] if DOMAIN=='gpc' else 0 for s in sm]
    x=[rnd.gauss(0,A_WALK*math.sqrt(j0)) for p in range(tiles)]
    conv=CONVOY if CONVOY!='s2' else ('all' if stages==2 else 'none')
    group=(lambda p: pos[p][0]) if conv=='row' else (lambda p: 0) if conv=='all' else (lambda p: p)
    row={}
    x=[row.setdefault(group(p), x[p]) for p in range(tiles)]
    # the tiles' own speeds (tile_rate_sd's measured spread of tile times: 4% at 3 stages, 7% at 4-5)
    sigma={3:0.04,4:0.07,5:0.07}.get(stages,0.0) if OWN else 0.0
    rate=[rnd.gauss(0,sigma) for p in range(tiles)]
    x=[v+rate[p]*j0 for p,v in enumerate(x)]
    look=req=0.0
    for j in range(j0,j0+8):
        step={}
        x=[v+step.setdefault(group(p),rnd.gauss(0,A_WALK))+rate[p] for p,v in enumerate(x)]
        t=[(j+v)*T for v in x]
        for which,bytes_ in (('A',bm*bk*2),('B',bn*bk*2)):
            groups=collections.defaultdict(list)
            for p in range(tiles):
                key=pos[p][0] if which=='A' else pos[p][1]
                groups[key].append(p)
            for key,ps in groups.items():
                ev=sorted((t[p],dom[p]) for p in ps)
                fill=None  # time the fill completes
                open_until={}
                opened={}  # domain -> (time its open read was looked up, a miss?)
                for tt,d in ev:
                    req+=bytes_
                    if CURVE:
                        if d in opened:
                            t0,miss=opened[d]
                            share=interp(MISS_CURVE if miss else HIT_CURVE, tt-t0)
                            if rnd.random()<share*(1-ODDS):
                                continue  # merged
                        look+=bytes_
                        if fill is None: fill=tt+LMISS
                        if d not in opened or interp(MISS_CURVE if opened[d][1] else HIT_CURVE, tt-opened[d][0])<0.02:
                            opened[d]=(tt, tt<fill)
                        continue
                    if open_until.get(d,-1)>=tt and rnd.random()>ODDS:
                        continue  # merged
                    look+=bytes_
                    if fill is None:
                        fill=tt+LMISS; open_until[d]=fill
                    elif tt<fill:
                        open_until[d]=max(open_until.get(d,-1),fill)
                    else:
                        open_until[d]=max(open_until.get(d,-1),tt+WHIT)
    return look/req
rows=[r for r in csv.DictReader(open(args['rows'])) if r['clean']=='True' and float(r['waves'])<=1.01]
out=[]
for r in rows:
    M,N,K,bm,bn,bk,g,s=(int(r[k]) for k in ('M','N','K','block_m','block_n','block_k','group_m','stages'))
    if M<bm or N<bn: continue
    sim=simulate(M,N,K,bm,bn,bk,g,s)
    out.append((float(r['merge']),float(r['pred_merge']),sim,r))
n=len(out)
print({k: v for k, v in args.items() if k != 'rows'}, n,'rows: lookups mean abs err, model %.3f sim %.3f; bias model %+.3f sim %+.3f'%(
    sum(abs(b-a) for a,b,c,_ in out)/n, sum(abs(c-a) for a,b,c,_ in out)/n, sum(b-a for a,b,c,_ in out)/n, sum(c-a for a,b,c,_ in out)/n))
if args.get('show'):
    for a,b,c,r in sorted(out,key=lambda x:-abs(x[2]-x[0]))[:15]:
        print(f"{r['M']}x{r['N']}x{r['K']} {r['block_m']}x{r['block_n']}x{r['block_k']} g{r['group_m']} s{r['stages']}: ncu {a:.2f} model {b:.2f} sim {c:.2f}")
