import { InjectionToken, type Provider, inject } from '@angular/core';

import { GATE_PLUGIN, type GateHost, type GatePlugin, type GatePluginFactory } from './gate-plugin';

/** The plug-in factories of the features given to one `provideTokenRefresh`, in their order. */
const GATE_PLUGINS = new InjectionToken<GatePluginFactory[]>(
  typeof ngDevMode !== 'undefined' && ngDevMode ? 'GATE_PLUGINS' : '',
);

/**
 * The providers by which a feature plugs `factory` into the gate. Every feature registers the same
 * composer: the gate gets one plug-in, made of all of theirs (one feature's own when it is alone).
 */
export function provideGatePlugin(factory: GatePluginFactory): Provider[] {
  return [
    { provide: GATE_PLUGINS, multi: true, useValue: factory },
    { provide: GATE_PLUGIN, useFactory: () => combine.bind(null, inject(GATE_PLUGINS)) },
  ];
}

/** The features' plug-ins for `host` as one: each point calls theirs, in order. */
function combine(factories: readonly GatePluginFactory[], host: GateHost): GatePlugin | null {
  const plugins: GatePlugin[] = [];
  for (const make of factories) {
    const plugin = make(host);
    if (plugin) plugins.push(plugin);
  }
  if (plugins.length < 2) return plugins[0] ?? null;
  const first = <K extends keyof GatePlugin>(point: K) => plugins.find((plugin) => plugin[point]);
  const sender = first('send');
  const refreshSender = first('sendRefresh');
  const marker = first('mark');
  return {
    request: () => plugins.forEach((plugin) => plugin.request?.()),
    send: sender && ((request, token, next) => sender.send!(request, token, next)),
    sendRefresh: refreshSender && ((request, next, allowed) => refreshSender.sendRefresh!(request, next, allowed)),
    mark: marker && ((request, token) => marker.mark!(request, token)),
    mayRefresh: (planned) => plugins.every((plugin) => plugin.mayRefresh?.(planned) !== false),
    refresh: (call) => plugins.reduce((wrapped, plugin) => plugin.refresh?.(wrapped) ?? wrapped, call),
    changed: (fresh, signIn) => plugins.forEach((plugin) => plugin.changed?.(fresh, signIn)),
    event: (event) => plugins.forEach((plugin) => plugin.event?.(event)),
    share: (token) => Promise.all(plugins.map((plugin) => plugin.share?.(token))),
  };
}
