; Inno Setup script for Understudy on Windows, compiled by installer\windows\build.ps1, which
; passes AppVersion, AppId and SourceDir (the PyInstaller folder) from
; installer\platform_info.py. Installs for the current user (no administrator needed), with a
; Start menu entry and the Tool Pack file type; uninstalling leaves every user's data alone.
#ifndef AppVersion
  #error Run installer\windows\build.ps1, which passes AppVersion and the rest
#endif

[Setup]
AppId={#AppId}
AppName=Understudy
AppVersion={#AppVersion}
AppPublisher=Understudy Desktop developers
DefaultDirName={localappdata}\Programs\Understudy
DefaultGroupName=Understudy
PrivilegesRequired=lowest
ArchitecturesAllowed=x64compatible
ArchitecturesInstallIn64BitMode=x64compatible
OutputBaseFilename=Understudy-Setup-{#AppVersion}
Compression=lzma2
SolidCompression=yes
WizardStyle=modern
ChangesAssociations=yes
LicenseFile=..\..\LICENSE
UninstallDisplayIcon={app}\understudy.exe

[Files]
Source: "{#SourceDir}\*"; DestDir: "{app}"; Flags: recursesubdirs createallsubdirs ignoreversion

[Icons]
Name: "{group}\Understudy"; Filename: "{app}\understudy.exe"
Name: "{userdesktop}\Understudy"; Filename: "{app}\understudy.exe"; Tasks: desktopicon

[Tasks]
Name: "desktopicon"; Description: "Put Understudy on the desktop"; Flags: unchecked

[Registry]
; Windows picks a file's program by its last extension only, so a Tool Pack
; (name.understudy-pack.json) is a .json file there: Understudy is offered under "Open with"
; for .json files instead of taking them all over. The import preview asks before anything.
Root: HKCU; Subkey: "Software\Classes\.json\OpenWithProgids"; ValueType: string; ValueName: "Understudy.ToolPack"; ValueData: ""; Flags: uninsdeletevalue
Root: HKCU; Subkey: "Software\Classes\Understudy.ToolPack"; ValueType: string; ValueName: ""; ValueData: "Understudy Tool Pack"; Flags: uninsdeletekey
Root: HKCU; Subkey: "Software\Classes\Understudy.ToolPack\DefaultIcon"; ValueType: string; ValueName: ""; ValueData: "{app}\understudy.exe,0"
Root: HKCU; Subkey: "Software\Classes\Understudy.ToolPack\shell\open\command"; ValueType: string; ValueName: ""; ValueData: """{app}\understudy.exe"" ""%1"""

[Run]
Filename: "{app}\understudy.exe"; Description: "Start Understudy"; Flags: nowait postinstall skipifsilent
