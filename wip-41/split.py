import os,re
import sys; root=sys.argv[1] if len(sys.argv)>1 else '/work/main/code'
V={'fan-in':'consumer_on_driver floor mpsc_bounded mpsc_recv_many mpsc_unbounded std_mutex_swap tokio_mutex_swap worker_chunks published/actor flume_inbox async_channel_inbox',
'mutex-swap':'guard_across_await lock_free_stack sharded_swap std_mutex_drain_locked std_mutex_pop_one std_mutex_swap tokio_mutex_swap parking_lot_swap',
'mutex-cost':'actor_counter std_mutex_counter tokio_mutex_counter tokio_budget_first_counter parking_lot_counter async_lock_counter futures_mutex_counter',
'alloc-probe':'channels/crossbeam_bounded channels/flume_bounded channels/futures_mpsc channels/kanal_async channels/kanal_sync channels/std_sync_channel channels/tokio_bounded channels/tokio_unbounded',
'channel-latency':'crossbeam_bounded kanal_async kanal_sync memcpy_floor std_sync_channel tokio_mpsc vec_floor flume_sync flume_async async_channel_bounded minimal_tokio minimal_crossbeam',
'chapter-template':'crossbeam_batch vec_batch'}
def n(path):
    s=open(path).read().split('\n')
    for i,l in enumerate(s):
        if l.strip()=='#[cfg(test)]' and i+1<len(s) and re.match(r'\s*(pub\s+)?mod\s+\w+',s[i+1]): s=s[:i];break
    return len(s)
T={}
print(f'{"chapter":17} {"variants":>8} {"lib.rs":>7} {"machinery":>9} {"book":>6} {"benches":>7} {"total":>6}  variant share')
for c,vs in V.items():
    vs=set(v+'.rs' for v in vs.split())
    d=os.path.join(root,c); a=dict(variants=0,lib=0,mach=0,book=0,bench=0)
    for dp,dn,fn in os.walk(d):
        rel=os.path.relpath(dp,d)
        parts=rel.split(os.sep)
        if parts[0] in ('tests','target') or 'tests' in parts: continue
        for f in fn:
            if not f.endswith('.rs') or f=='tests.rs': continue
            r=os.path.normpath(os.path.join(rel,f)); k=n(os.path.join(dp,f))
            if r.startswith('benches'): a['bench']+=k
            elif r.startswith('src/book'): a['book']+=k
            elif r[4:] in vs: a['variants']+=k
            elif r=='src/lib.rs': a['lib']+=k
            else: a['mach']+=k
    t=sum(a.values())
    for k in a: T[k]=T.get(k,0)+a[k]
    print(f'{c:17} {a["variants"]:8} {a["lib"]:7} {a["mach"]:9} {a["book"]:6} {a["bench"]:7} {t:6}  {100*a["variants"]/t:.1f}%')
t=sum(T.values())
print(f'{"ALL":17} {T["variants"]:8} {T["lib"]:7} {T["mach"]:9} {T["book"]:6} {T["bench"]:7} {t:6}  {100*T["variants"]/t:.1f}%')
print('machinery = src/ outside src/book/, lib.rs and the variant files (run/, experiments, sweeps, plans, drivers, counted, profiles, cause, published harnesses, main.rs, build.rs)')
