#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The quick start's agent: drives the reference game through `gamegate mcp`
the way an MCP client does (launch, play, read, look, stop), printing each
result, and saves the screenshot it got as MCP image content.

Usage: drive-game.py GAMEGATE LAUNCH_CONFIG [SCREENSHOT.png]
"""
import base64
import json
import subprocess
import sys


def main(gamegate, launch_config, screenshot_path=None):
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
    if screenshot_path is not None:
        save_screenshot(request, port, screenshot_path)
    call('stop_instance', {'port': port})
    proc.stdin.close()
    return proc.wait()


def save_screenshot(request, port, path):
    """call_tool screenshot: a text part (frame, size) and the image itself."""
    arguments = {'port': port, 'name': 'screenshot'}
    reply = request('tools/call', {'name': 'call_tool', 'arguments': arguments})
    result = reply.get('result', {})
    images = [c for c in result.get('content', []) if c.get('type') == 'image']
    print(f'--> call_tool {json.dumps(arguments)}\n<-- {json.dumps(result.get("structuredContent"))}\n')
    if result.get('isError') or not images:
        print(f'quickstart: no screenshot: {json.dumps(result)[:300]}')
        return
    with open(path, 'wb') as out:
        out.write(base64.b64decode(images[0]['data']))
    shown = result.get('structuredContent', {})
    print(f'quickstart: saved a screenshot of the reference game ({shown.get("width")}x{shown.get("height")} '
          f'{images[0]["mimeType"]}, frame {shown.get("frame")}) to {path}\n')


if __name__ == '__main__':
    sys.exit(main(*sys.argv[1:4]))
