"""One kernel for the notebooks a test opens when the kernel is not what it tests.

Opening a notebook starts a Pyodide kernel of its own: about 10 CPU-s, the default run's largest cost on 2 cores.
`SHARE_KERNEL` gives a path a session on a kernel the page already runs, before its notebook opens, as JupyterLab's
"use the kernel of another session" does; the open then finds that session and starts no kernel. With no kernel
running yet, it does nothing (the open starts one). A notebook on a shared kernel is closed without shutting its
session down: that would stop the kernel of every notebook sharing it.
"""

SHARE_KERNEL = """async path => {
    const {sessions, kernels} = window.jupyterapp.serviceManager;
    await Promise.all([sessions.refreshRunning(), kernels.refreshRunning()]);
    const alive = new Set(Array.from(kernels.running(), kernel => kernel.id));
    const running = Array.from(sessions.running());
    const donor = running.find(session => session.kernel && alive.has(session.kernel.id));
    if (!donor || running.some(session => session.path === path)) return;
    await sessions.startNew({path, name: path, type: 'notebook', kernel: {id: donor.kernel.id}});
    await sessions.refreshRunning();
}"""
