# grant-legs.py RUN_DIR: per-leg p50/p90/p99 of grant -> enforced from the LEG timestamps that the scratch
# instrumentation of branch h-grant2-legs prints (grant-service.log, gate.log, and enforced-*.txt with LEGS=1).
# See docs/BENCHMARKS.md, "Grant path, 2026-12-02".
import re,sys,glob,statistics as st
run=sys.argv[1]
def kv(line):
    return dict(re.findall(r'(\w+)=(\S+)',line))
ops=[]
for f in sorted(glob.glob(run+'/enforced-*.txt')):
    for l in open(f):
        if l.startswith('LEG op'): ops.append(kv(l))
svc=[(l.split()[1],kv(l)) for l in open(run+'/grant-service.log') if l.startswith('LEG ')]
gate=[(l.split()[1],kv(l)) for l in open(run+'/gate.log') if l.startswith('LEG ')]
def first(evs,name,after,cond=lambda d:True):
    for n,d in evs:
        if n==name and int(d['t'])>=after and cond(d): return int(d['t'])
    return None
def byv(evs,name,v):
    for n,d in evs:
        if n==name and d.get('v')==v: return d
    return None
legs={}
def add(k,v):
    if v is not None: legs.setdefault(k,[]).append(v/1000.0)
for o in ops:
    v=o['v']; t0=int(o['t0']); flip=int(o['flip']); api=int(o['api'])
    c=byv(svc,'commit',v)
    if not c: continue
    tin=int(c['in']); tc=int(c['t'])
    woke=first(svc,'woke',tc)
    # the relay may have been mid-pass: use first 'read' after commit
    read=first(svc,'read',tc)
    signed=first(svc,'signed',read or tc)
    acked=None
    for n,d in svc:
        if n=='acked' and d.get('id','').endswith('/v'+v): acked=int(d['t']);break
    rc=first(svc,'relaycommit',acked or tc)
    rec=first(gate,'gaterec',signed or tc)
    ap=byv(gate,'applied',v); ap=int(ap['t']) if ap else None
    fs=byv(gate,'fsynced',v); fs=int(fs['t']) if fs else None
    ss=first(gate,'statussend',fs or 0,lambda d:d['v']==v) if fs else None
    sr=first(svc,'statusrecv',ss or 0,lambda d:d['v']==v) if ss else None
    kind='grant' if o['grant']=='true' else 'revoke'
    for k,val in [('1 call->service in',tin-t0),('2 in->commit (tx)',tc-tin),('3 commit->relay woke',(woke-tc) if woke else None),
                  ('4 commit->relay read done',(read-tc) if read else None),('5 read->signed',(signed-read) if signed and read else None),
                  ('6 signed->acked',(acked-signed) if acked and signed else None),('7 signed->gate got record',(rec-signed) if rec and signed else None),
                  ('8 gate got->applied',(ap-rec) if ap and rec else None),('9 applied->flip seen',(flip-ap) if ap else None),
                  ('A total call->flip',flip-t0),('B applied->fsynced',(fs-ap) if fs and ap else None),('C fsynced->status sent',(ss-fs) if ss and fs else None),
                  ('D status sent->svc recv',(sr-ss) if sr and ss else None),('E svc recv->api answer',(api-sr) if sr else None),('F acked->relay commit',(rc-acked) if rc and acked else None),
                  ('G probes per op',int(o['probes'])*1000)]:
        add(k,val); add(kind+' '+k,val)
def pct(xs,p):
    xs=sorted(xs); i=min(len(xs)-1,int(round(p/100*(len(xs)-1)))); return xs[i]
print('%-40s %6s %8s %8s %8s %8s'%('leg (ms)','n','p50','p90','p99','mean'))
for k in sorted(legs):
    xs=legs[k]
    print('%-40s %6d %8.2f %8.2f %8.2f %8.2f'%(k,len(xs),pct(xs,50),pct(xs,90),pct(xs,99),st.mean(xs)))
