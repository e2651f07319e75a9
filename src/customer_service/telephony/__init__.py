"""The phone line and the room: hang-up, transfer, keypad entry, caller ID, noise
cancellation by participant kind, and the attributes the agent publishes.

Everything here wraps the framework's own primitives (`beta.tools.EndCallTool`,
`beta.workflows.WarmTransferTask`, `beta.workflows.GetDtmfTask`, the SIP transfer API)
in the call's policy; nothing here re-implements them.
"""
