#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The quick start's agent: drives the reference game through `gamegate mcp`
the way an MCP client does (launch, play, read, stop), printing each result.

Usage: drive-game.py GAMEGATE LAUNCH_CONFIG
"""
import json
import subprocess
import sys


def main(gamegate, launch_config):
    proc = subprocess.Popen([gamegate, 'mcp', '--launch-config', launch_config, '--no-scan'],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    next_id = 0

    def request(method, params=None):
        nonlocal next_id
        next_id += 1
        message = {'jsonrpc': '2.0', 'id': next_id, 'method': method}
        if params is not None:
            message['params'] = params
        proc.stdin.write(json.dumps(message) + '\n')
        proc.stdin.flush()
        for line in proc.stdout:
            reply = json.loads(line)
            if reply.get('id') == next_id:
                return reply
        raise SystemExit('gamegate mcp closed its output')

    def call(tool, arguments):
        reply = request('tools/call', {'name': tool, 'arguments': arguments})
        result = reply.get('result', {})
        shown = result.get('structuredContent') or result.get('content') or reply.get('error')
        print(f'--> {tool} {json.dumps(arguments)}\n<-- {json.dumps(shown)[:600]}\n')
        return result.get('structuredContent') or {}

    request('initialize', {'protocolVersion': '2025-11-25', 'capabilities': {},
                           'clientInfo': {'name': 'quickstart', 'version': '1'}})
    proc.stdin.write(json.dumps({'jsonrpc': '2.0', 'method': 'notifications/initialized'}) + '\n')
    proc.stdin.flush()
    launched = call('launch_instance', {})
    port = launched.get('port')
    if port is None:
        proc.stdin.close()
        proc.wait()
        return 1
    call('list_toolsets', {'port': port})
    call('call_tool', {'port': port, 'name': 'spawn'})
    call('call_tool', {'port': port, 'name': 'drop', 'arguments': {'x': 0.5}})
    call('call_tool', {'port': port, 'name': 'get_state', 'arguments': {'path': 'game'}})
    call('stop_instance', {'port': port})
    proc.stdin.close()
    return proc.wait()


if __name__ == '__main__':
    sys.exit(main(sys.argv[1], sys.argv[2]))
